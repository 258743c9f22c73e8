// SPDX-License-Identifier: Apache-2.0

extension JSONDocument {
    /// A recursive-descent reader of RFC 8259 over bytes already known to be UTF-8; strings are
    /// checked (escapes, surrogate pairs, no raw control characters) but not decoded.
    struct Parser {
        let bytes: [UInt8]
        var offset = 0

        static func error(_ what: String, at offset: Int) -> ForeignFormatError {
            .damaged("\(what) at byte \(offset) of the JSON")
        }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func value(depth: Int) throws(ForeignFormatError) -> Value {
            guard depth < JSONDocument.maximumDepth else {
                throw Self.error("arrays and objects nested deeper than \(JSONDocument.maximumDepth)", at: offset)
            }
            guard offset < bytes.count else { throw Self.error("the JSON ends early", at: offset) }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try word("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try word("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try word("null")
                return .null
            default: return .number(try number())
            }
        }

        private mutating func object(depth: Int) throws(ForeignFormatError) -> Value {
            offset += 1
            var members: [(key: String, value: Value)] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                    throw Self.error("an object key expected", at: offset)
                }
                let keyRange = try string()
                var key: [UInt8] = []
                JSONDocument.unescape(bytes[keyRange]) { key.append($0) }
                skipSpace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                    throw Self.error("':' expected", at: offset)
                }
                offset += 1
                skipSpace()
                members.append((String(decoding: key, as: UTF8.self), try value(depth: depth + 1)))
                skipSpace()
                guard offset < bytes.count else { throw Self.error("the JSON ends early", at: offset) }
                offset += 1
                if bytes[offset - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[offset - 1] == UInt8(ascii: ",") else {
                    throw Self.error("',' or '}' expected", at: offset - 1)
                }
            }
        }

        private mutating func array(depth: Int) throws(ForeignFormatError) -> Value {
            offset += 1
            var elements: [Value] = []
            skipSpace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard offset < bytes.count else { throw Self.error("the JSON ends early", at: offset) }
                offset += 1
                if bytes[offset - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[offset - 1] == UInt8(ascii: ",") else {
                    throw Self.error("',' or ']' expected", at: offset - 1)
                }
            }
        }

        /// A string's escaped bytes (the quotes left out), checked.
        private mutating func string() throws(ForeignFormatError) -> Range<Int> {
            let start = offset + 1
            offset = start
            while offset < bytes.count {
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return start..<(offset - 1)
                case UInt8(ascii: "\\"):
                    try escape()
                case 0..<0x20:
                    throw Self.error("a control character inside a string", at: offset)
                default:
                    offset += 1
                }
            }
            throw Self.error("a string that does not end", at: start - 1)
        }

        /// One escape sequence at `offset` (its backslash); a `\u` high surrogate must be followed
        /// by a `\u` low one, and a low one must follow a high one.
        private mutating func escape() throws(ForeignFormatError) {
            let at = offset
            guard offset + 1 < bytes.count else { throw Self.error("a string that does not end", at: at) }
            let kind = bytes[offset + 1]
            offset += 2
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if (0xDC00..<0xE000).contains(unit) { throw Self.error("a lone UTF-16 surrogate", at: at) }
                guard (0xD800..<0xDC00).contains(unit) else { return }
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else { throw Self.error("a lone UTF-16 surrogate", at: at) }
                offset += 2
                guard (0xDC00..<0xE000).contains(try hex4()) else {
                    throw Self.error("a lone UTF-16 surrogate", at: at)
                }
            default:
                throw Self.error("an unknown escape", at: at)
            }
        }

        private mutating func hex4() throws(ForeignFormatError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw Self.error("a \\u escape that is cut short", at: offset) }
            var value: UInt32 = 0
            for index in offset..<(offset + 4) {
                guard let digit = JSONDocument.hexDigit(bytes[index]) else {
                    throw Self.error("a \\u escape that is not hex", at: offset)
                }
                value = value << 4 | UInt32(digit)
            }
            offset += 4
            return value
        }

        /// `-? int frac? exp?` as RFC 8259 has it.
        private mutating func number() throws(ForeignFormatError) -> Range<Int> {
            let start = offset
            let isDigit = { (byte: UInt8) in (48...57).contains(byte) }
            func digits() -> Int {
                let from = offset
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
                return offset - from
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let leading = offset
            let count = digits()
            guard count > 0, count == 1 || bytes[leading] != UInt8(ascii: "0") else {
                throw Self.error("a value that is not JSON", at: start)
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits() > 0 else { throw Self.error("a number without digits after '.'", at: start) }
            }
            if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard digits() > 0 else { throw Self.error("a number without digits in its exponent", at: start) }
            }
            return start..<offset
        }

        private mutating func word(_ text: StaticString) throws(ForeignFormatError) {
            let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard offset + expected.count <= bytes.count,
                bytes[offset..<(offset + expected.count)].elementsEqual(expected)
            else { throw Self.error("a value that is not JSON", at: offset) }
            offset += expected.count
        }
    }
}
