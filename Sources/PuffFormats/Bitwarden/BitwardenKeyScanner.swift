// SPDX-License-Identifier: Apache-2.0

/// Looks at the top-level keys of what may be the first 64 KiB of a JSON object, without parsing
/// (the prefix may end anywhere): content detection for ``BitwardenExport``. Every step moves
/// forward, so it ends within the prefix's length.
struct BitwardenKeyScanner {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether a top-level key is `encrypted` with `true` or `false`, or `items` with a list.
    mutating func hasExportKey() -> Bool {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        skipSpace()
        guard next() == UInt8(ascii: "{") else { return false }
        while true {
            skipSpace()
            guard next() == UInt8(ascii: "\""), let key = rawString() else { return false }
            skipSpace()
            guard next() == UInt8(ascii: ":") else { return false }
            skipSpace()
            guard offset < bytes.count else { return false }
            let first = bytes[offset]
            if key == Array("encrypted".utf8), first == UInt8(ascii: "t") || first == UInt8(ascii: "f") { return true }
            if key == Array("items".utf8), first == UInt8(ascii: "[") { return true }
            guard skipValue() else { return false }
            skipSpace()
            guard next() == UInt8(ascii: ",") else { return false }
        }
    }

    private mutating func next() -> UInt8? {
        guard offset < bytes.count else { return nil }
        offset += 1
        return bytes[offset - 1]
    }

    private mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    /// The bytes of a string whose opening quote was read, escapes left in; nil when it does not
    /// end within the prefix.
    private mutating func rawString() -> [UInt8]? {
        let start = offset
        while let byte = next() {
            if byte == UInt8(ascii: "\\") {
                _ = next()
            } else if byte == UInt8(ascii: "\"") {
                return Array(bytes[start..<(offset - 1)])
            }
        }
        return nil
    }

    /// Moves past one value (strings and nesting followed, nothing checked); false when the
    /// prefix ends first.
    private mutating func skipValue() -> Bool {
        var depth = 0
        while let byte = next() {
            switch byte {
            case UInt8(ascii: "\""):
                guard rawString() != nil else { return false }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { return false }
            case UInt8(ascii: ","):
                if depth == 0 {
                    offset -= 1
                    return true
                }
            default:
                break
            }
            if depth == 0, offset < bytes.count, [UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[offset]) {
                return true
            }
        }
        return false
    }
}
