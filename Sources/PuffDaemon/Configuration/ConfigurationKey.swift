// SPDX-License-Identifier: Apache-2.0

/// One key of `puffd.toml`: how its value is checked and read into a ``DaemonConfiguration``,
/// and how the effective value is printed (`puffd --print-config`). Reading and printing sit
/// side by side so that what is printed is always something the reader takes back.
struct ConfigurationKey {
    /// The table the key sits in, `prompts` for `prompts.timeout`.
    let section: String
    /// The key's name within its table.
    let name: String
    /// Checks `value` and stores it, or throws what is wrong with it.
    let read: (TOMLValue, inout DaemonConfiguration) throws(KeyReason) -> Void
    /// The effective value for a TOML file; nil when the key is not set and has no default.
    let write: (DaemonConfiguration, [String: String]) -> (any TOMLWritable)?

    /// `section.name`.
    var dotted: String { "\(section).\(name)" }
}

/// What is wrong with one value, for a person; the reader adds the file, line and key.
struct KeyReason: Error, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
}

extension ConfigurationKey {
    /// A string that must be one of `choices`, stored at `field`.
    static func choice(
        _ section: String, _ name: String, _ field: WritableKeyPath<DaemonConfiguration, String>, choices: [String],
        noun: String
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name,
            read: { value, configuration throws(KeyReason) in
                let text = try string(value)
                guard choices.contains(text) else {
                    throw KeyReason(
                        "unknown \(noun) \(quoted(text)); choose one of: \(choices.joined(separator: ", "))")
                }
                configuration[keyPath: field] = text
            },
            write: { configuration, _ in configuration[keyPath: field] })
    }

    /// An absolute path, stored at `field`; `effective` gives the printed value when it is unset.
    static func path(
        _ section: String, _ name: String, _ field: WritableKeyPath<DaemonConfiguration, String?>,
        effective: @escaping (DaemonConfiguration, [String: String]) -> String? = { configuration, _ in nil }
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name,
            read: { value, configuration throws(KeyReason) in
                configuration[keyPath: field] = try absolutePath(value)
            },
            write: { configuration, environment in
                configuration[keyPath: field] ?? effective(configuration, environment)
            })
    }

    /// Whole seconds in `range`, stored at `field`; `effective` gives the printed value.
    static func seconds(
        _ section: String, _ name: String, _ field: WritableKeyPath<DaemonConfiguration, Int?>,
        range: ClosedRange<Int>, effective: @escaping (DaemonConfiguration) -> Int
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name,
            read: { value, configuration throws(KeyReason) in
                configuration[keyPath: field] = try seconds(value, range: range)
            },
            write: { configuration, _ in effective(configuration) })
    }

    /// A whole number in `range`, stored at `field`.
    static func limit(
        _ name: String, _ field: WritableKeyPath<DaemonConfiguration, Int>, range: ClosedRange<Int>
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: "limits", name: name,
            read: { value, configuration throws(KeyReason) in
                guard let number = value.int else { throw KeyReason("must be a whole number, not \(shown(value))") }
                guard range.contains(number) else {
                    throw KeyReason(
                        "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(number)")
                }
                configuration[keyPath: field] = number
            },
            write: { configuration, _ in configuration[keyPath: field] })
    }

    /// `true` or `false`, stored at `field`.
    static func flag(
        _ section: String, _ name: String, _ field: WritableKeyPath<DaemonConfiguration, Bool>
    ) -> ConfigurationKey {
        ConfigurationKey(
            section: section, name: name,
            read: { value, configuration throws(KeyReason) in
                guard let flag = value.bool else { throw KeyReason("must be true or false, not \(shown(value))") }
                configuration[keyPath: field] = flag
            },
            write: { configuration, _ in configuration[keyPath: field] })
    }

    /// A whole number in `range` in `section`, stored at `field`.
    static func number(
        _ section: String, _ name: String, _ field: WritableKeyPath<DaemonConfiguration, Int>,
        range: ClosedRange<Int>
    ) -> ConfigurationKey {
        let key = limit(name, field, range: range)
        return ConfigurationKey(section: section, name: name, read: key.read, write: key.write)
    }

    /// `value` as a string, or a reason naming what it is instead.
    static func string(_ value: TOMLValue) throws(KeyReason) -> String {
        guard let text = value.string else { throw KeyReason("must be a string, not \(shown(value))") }
        return text
    }

    /// `value` as an absolute path: the daemon's working folder is not one a person chose.
    static func absolutePath(_ value: TOMLValue) throws(KeyReason) -> String {
        let text = try string(value)
        guard text.hasPrefix("/") else { throw KeyReason("must be an absolute path, not \(quoted(text))") }
        return text
    }

    /// `value` as whole seconds within `range`.
    static func seconds(_ value: TOMLValue, range: ClosedRange<Int>) throws(KeyReason) -> Int {
        guard let number = value.int else {
            throw KeyReason("must be a whole number of seconds, not \(shown(value))")
        }
        guard number >= range.lowerBound else {
            throw KeyReason(
                range.lowerBound == 0
                    ? "must be 0 (never) or a positive number of seconds, not \(number)"
                    : "must be a positive number of seconds, not \(number)")
        }
        guard number <= range.upperBound else {
            throw KeyReason("must be at most \(range.upperBound) seconds, not \(number)")
        }
        return number
    }

    /// A value as a message shows it: a number or string itself, anything else by its type.
    static func shown(_ value: TOMLValue) -> String {
        switch value {
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .string(let text): "the string \(quoted(text))"
        case .array: "an array"
        case .table: "a table"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        }
    }

    /// `text` in double quotes, as TOML writes a basic string.
    static func quoted(_ text: String) -> String { text.tomlLiteral }
}
