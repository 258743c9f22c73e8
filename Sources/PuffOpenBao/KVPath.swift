// SPDX-License-Identifier: Apache-2.0

/// Paths in OpenBao's API, made of `/`-separated names, each percent-encoded on its own.
enum KVPath {
    /// `path` with every segment percent-encoded but the unreserved characters of RFC 3986.
    ///
    /// - Throws: ``OpenBaoError/refused(_:)`` for an empty segment, `.` or `..` (which would
    ///   name another path), or a control character.
    static func escaped(_ path: String) throws(OpenBaoError) -> String {
        var segments: [String] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != "..",
                !segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw .refused("\(path.debugDescription) is not a usable OpenBao path") }
            segments.append(escape(segment.utf8))
        }
        return segments.joined(separator: "/")
    }

    /// One segment: letters, digits and `-._~` kept, every other byte as `%XX`.
    static func escape(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var escaped: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                escaped.append(byte)
            default:
                escaped += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }
}
