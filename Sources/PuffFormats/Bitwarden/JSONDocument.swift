// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto

/// A JSON document (RFC 8259) read without copying its strings: a string is the range of its
/// still-escaped bytes in the source, decoded only where it is used, into a `String` for a name
/// or label and straight into locked memory for a secret (``secret(_:in:)``), so a password
/// never passes through an ordinary array. Strict: UTF-8 only, nothing after the value, nesting
/// bounded by ``maximumDepth``. Package-wide: PuffOpenBao reads OpenBao's answers with it.
package struct JSONDocument {
    /// One value; object keys are decoded (they are never secret).
    package indirect enum Value {
        case object([(key: String, value: Value)])
        case array([Value])
        /// The bytes between the quotes, escapes still in.
        case string(Range<Int>)
        case number(Range<Int>)
        case bool(Bool)
        case null

        /// The value of `key` in an object (the last one, as JavaScript's parser keeps); nil for
        /// a missing key or when this is not an object.
        package subscript(key: String) -> Value? {
            guard case .object(let members) = self else { return nil }
            return members.last { $0.key == key }?.value
        }

        /// The elements of an array; nil for anything else (`null` included).
        package var elements: [Value]? {
            if case .array(let elements) = self { elements } else { nil }
        }
    }

    /// How deep arrays and objects may nest: far beyond any export, and far from the stack's end.
    static let maximumDepth = 64

    package let bytes: [UInt8]
    package let root: Value

    /// Parses `bytes` whole.
    ///
    /// - Throws: ``ForeignFormatError/damaged(_:)`` naming the byte offset where it stops being JSON.
    package init(_ bytes: [UInt8]) throws(ForeignFormatError) {
        self.bytes = bytes
        guard Self.isValidUTF8(bytes) else { throw .damaged("the JSON is not UTF-8") }
        var parser = Parser(bytes: bytes)
        // A byte order mark is not JSON, but editors on some systems write one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.offset = 3 }
        parser.skipSpace()
        root = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw Parser.error("text after the JSON value", at: parser.offset) }
    }

    /// The string `value` decoded, or nil when it is not a string.
    package func string(_ value: Value?) -> String? {
        guard case .string(let range)? = value else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(range.count)
        Self.unescape(bytes[range]) { decoded.append($0) }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The string `value` decoded straight into locked memory, or nil when it is not a string.
    package func secret(_ value: Value?) -> SecureBytes? {
        guard case .string(let range)? = value else { return nil }
        var length = 0
        Self.unescape(bytes[range]) { _ in length += 1 }
        return SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) in
            var index = 0
            Self.unescape(bytes[range]) { byte in
                output[index] = byte
                index += 1
            }
        }
    }

    /// Whether `value` is a string of at least one character (looked at without decoding it).
    package func hasText(_ value: Value?) -> Bool {
        if case .string(let range)? = value { !range.isEmpty } else { false }
    }

    /// An integer `value`; nil for anything else (a fraction, an exponent, a string).
    package func integer(_ value: Value?) -> Int? {
        guard case .number(let range)? = value, range.count <= 18 else { return nil }
        return Int(String(decoding: bytes[range], as: UTF8.self))
    }

    /// Calls `emit` with each byte of the UTF-8 a validated escaped string stands for.
    static func unescape(_ raw: ArraySlice<UInt8>, _ emit: (UInt8) -> Void) {
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                emit(byte)
                continue
            }
            let kind = raw[index]
            index += 1
            switch kind {
            case UInt8(ascii: "b"): emit(0x08)
            case UInt8(ascii: "f"): emit(0x0C)
            case UInt8(ascii: "n"): emit(0x0A)
            case UInt8(ascii: "r"): emit(0x0D)
            case UInt8(ascii: "t"): emit(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, at: index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // The parser checked a low surrogate follows.
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (hex4(raw, at: index + 2) - 0xDC00)
                    index += 6
                }
                for unit in UTF8.encode(Unicode.Scalar(scalar)!)! { emit(unit) }
            default: emit(kind)
            }
        }
    }

    static func hex4(_ raw: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(hexDigit(raw[index + offset]) ?? 0) }
        return value
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Whether `bytes` are UTF-8, checked in place.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
