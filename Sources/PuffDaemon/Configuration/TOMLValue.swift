// SPDX-License-Identifier: Apache-2.0
import CPuffTOML

/// A value of a parsed TOML document, read by toml++ (through the CPuffTOML shim), so no TOML
/// parser is ours. Tables keep toml++'s key order (sorted), which ``ConfigurationFile`` relies on
/// only through the line order it sorts problems by.
indirect enum TOMLValue: Equatable {
    case table([TOMLEntry])
    case array([TOMLValue])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date
    case time
    case dateTime

    /// Parses `text`, or throws toml++'s description and position of the first syntax error.
    static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLValue {
        var failure = puff_toml_error()
        var text = text
        let document = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { puff_toml_parse($0.baseAddress, $0.count, &failure) }
        }
        guard let document else {
            defer { puff_toml_free_text(failure.description) }
            throw TOMLSyntaxError(
                description: failure.description.map { String(cString: $0) } ?? "cannot parse it",
                line: Int(failure.line), column: Int(failure.column))
        }
        defer { puff_toml_free(document) }
        return TOMLValue(puff_toml_root(document))
    }

    /// The Swift value of `node`, with everything under it.
    private init(_ node: OpaquePointer) {
        switch puff_toml_type_of(node) {
        case PUFF_TOML_TABLE:
            self = .table(Self.entries(of: node).map { TOMLEntry(key: $0.key ?? "", value: $0.value) })
        case PUFF_TOML_ARRAY: self = .array(Self.entries(of: node).map(\.value))
        case PUFF_TOML_STRING:
            var text: UnsafePointer<CChar>?
            var length = 0
            puff_toml_string(node, &text, &length)
            self = .string(Self.text(text, length))
        case PUFF_TOML_INTEGER:
            var number: Int64 = 0
            puff_toml_integer(node, &number)
            self = .int(Int(number))
        case PUFF_TOML_FLOAT:
            var number = 0.0
            puff_toml_float(node, &number)
            self = .double(number)
        case PUFF_TOML_BOOLEAN:
            var flag = false
            puff_toml_boolean(node, &flag)
            self = .bool(flag)
        case PUFF_TOML_DATE: self = .date
        case PUFF_TOML_TIME: self = .time
        default: self = .dateTime
        }
    }

    /// A table's keys and values, or an array's values (keys nil), in toml++'s order.
    private static func entries(of node: OpaquePointer) -> [(key: String?, value: TOMLValue)] {
        var nodes: [(key: String?, node: OpaquePointer)] = []
        withUnsafeMutablePointer(to: &nodes) { list in
            puff_toml_each(
                node,
                { context, key, length, value in
                    let list = context!.assumingMemoryBound(to: [(key: String?, node: OpaquePointer)].self)
                    list.pointee.append((key.map { TOMLValue.text($0, length) }, value!))
                }, list)
        }
        return nodes.map { ($0.key, TOMLValue($0.node)) }
    }

    /// `length` UTF-8 bytes at `text` (which may hold NUL) as a string.
    private static func text(_ text: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let text else { return "" }
        return text.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    var table: [TOMLEntry]? { if case .table(let entries) = self { entries } else { nil } }
    var array: [TOMLValue]? { if case .array(let values) = self { values } else { nil } }
    var string: String? { if case .string(let text) = self { text } else { nil } }
    var int: Int? { if case .int(let number) = self { number } else { nil } }
    var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }

    /// The value at `key` of a table.
    subscript(key: String) -> TOMLValue? { table?.first { $0.key == key }?.value }
}

/// One key of a table and its value.
struct TOMLEntry: Equatable {
    var key: String
    var value: TOMLValue
}

/// A TOML syntax error as toml++ reports it: its message and 1-based position.
struct TOMLSyntaxError: Error, Equatable {
    var description: String
    var line: Int
    var column: Int
}

/// A value `puffd --print-config` writes, as toml++ writes it after `key = `, so that quoting and
/// escaping are the reader's own.
protocol TOMLWritable {
    var tomlLiteral: String { get }
}

/// A text the shim allocated, as a string, freed.
private func taken(_ text: UnsafeMutablePointer<CChar>?) -> String {
    guard let text else { return "" }
    defer { puff_toml_free_text(text) }
    return String(cString: text)
}

extension String: TOMLWritable {
    var tomlLiteral: String {
        var text = self
        return taken(
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { puff_toml_format_string($0.baseAddress, $0.count) }
            })
    }
}

extension Int: TOMLWritable {
    var tomlLiteral: String { taken(puff_toml_format_integer(Int64(self))) }
}

extension Bool: TOMLWritable {
    var tomlLiteral: String { taken(puff_toml_format_boolean(self)) }
}

extension Array: TOMLWritable where Element == String {
    var tomlLiteral: String {
        // Copies that stay put for the call; a string may hold NUL, so lengths go beside them.
        let copies = map { text in
            let bytes = UnsafeMutableBufferPointer<CChar>.allocate(capacity: Swift.max(1, text.utf8.count))
            _ = bytes.initialize(from: text.utf8.lazy.map { CChar(bitPattern: $0) })
            return bytes
        }
        defer { for copy in copies { copy.deallocate() } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.baseAddress.map { UnsafePointer($0) } }
        let lengths = map { $0.utf8.count }
        return taken(puff_toml_format_strings(pointers, lengths, count))
    }
}
