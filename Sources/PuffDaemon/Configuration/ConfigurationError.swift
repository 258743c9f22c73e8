// SPDX-License-Identifier: Apache-2.0

/// Why `puffd.toml` cannot be used. Its ``description`` is the one line `puffd` prints before it
/// stops: `FILE:LINE[:COLUMN]: KEY: REASON`, the shape compilers use, so editors can jump to it.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The configuration file's path, as given or found.
    public var file: String
    /// The 1-based line the problem is on, when known.
    public var line: Int?
    /// The 1-based column, when known (toml++ gives one for syntax errors).
    public var column: Int?
    /// The dotted key (`prompts.timeout`), when the problem is one key's.
    public var key: String?
    /// What is wrong, for a person.
    public var reason: String

    /// An error in `file`.
    public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.reason = reason
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if line != nil, let column { place += ":\(column)" }
        return [place, key, reason].compactMap { $0 }.joined(separator: ": ")
    }
}

/// A problem with one key's value, before the file and line are known; ``ConfigurationFile``
/// turns it into a ``ConfigurationError``.
struct KeyProblem: Error, Equatable {
    /// The dotted key path, one element per table level.
    var path: [String]
    /// What is wrong.
    var reason: String
}
