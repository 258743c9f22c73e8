// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One entry of a `pass` store (the standard Unix password store) as an item, from the decrypted
/// content of its `.gpg` file (docs/migration.md): label = the entry's path, secret = the first
/// line, `user` from a `login:`, `user:` or `username:` line and `url` from a `url:` line. The
/// rest of the file is kept nowhere (listed as left behind, by count, never by content).
public enum PassEntry {
    /// The names of the lines `user` is read from, lowercase, in the order they win.
    static let userKeys = ["login", "user", "username"]

    /// The item of the entry at `path` (its path under the store, without `.gpg`), whose
    /// decrypted file is `plaintext`. The secret is the bytes before the first newline, exactly
    /// (empty when the file starts with one); nothing of the rest enters an ordinary array but
    /// the values of the `user` and `url` lines.
    public static func item(path: String, plaintext: SecureBytes) -> PortableItem {
        plaintext.withUnsafeBytes { bytes in
            let lines = lineRanges(bytes)
            let first = lines.first ?? 0..<0
            let secret = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[first]))
            var attributes: [String: String] = [:]
            var user: (rank: Int, value: String)?
            var others = 0
            // A line is left behind unless its value became an attribute (the first `url:`, the
            // best-ranked user line).
            for range in lines.dropFirst() where !range.isEmpty {
                others += 1
                guard let (key, value) = field(UnsafeRawBufferPointer(rebasing: bytes[range])) else { continue }
                if let rank = userKeys.firstIndex(of: key), rank < (user?.rank ?? .max) {
                    if user == nil { others -= 1 }
                    user = (rank, value)
                } else if key == "url", attributes["url"] == nil {
                    attributes["url"] = value
                    others -= 1
                }
            }
            if let user { attributes["user"] = user.value }
            let leftBehind = others == 0 ? [] : ["\(others) more line\(others == 1 ? "" : "s") of the file"]
            return PortableItem(label: path, attributes: attributes, secret: secret, leftBehind: leftBehind)
        }
    }

    /// The ranges of the lines of `bytes`, newlines excluded; a last line without a newline
    /// counts, an empty file has none.
    static func lineRanges(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
            ranges.append(start..<index)
            start = index + 1
        }
        if start < bytes.count { ranges.append(start..<bytes.count) }
        return ranges
    }

    /// `key: value` of a line whose key is one Puff reads (case-insensitive), the value with the
    /// spaces and tabs around it removed; nil for any other line (its content is never copied).
    static func field(_ line: UnsafeRawBufferPointer) -> (String, String)? {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == 0x0D }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon <= 16 else { return nil }
        let start = line[..<colon].firstIndex { !blank($0) } ?? colon
        let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<colon]), as: UTF8.self).lowercased()
        guard key == "url" || userKeys.contains(key) else { return nil }
        var lower = colon + 1
        var upper = line.count
        while lower < upper, blank(line[lower]) { lower += 1 }
        while upper > lower, blank(line[upper - 1]) { upper -= 1 }
        return (key, String(decoding: UnsafeRawBufferPointer(rebasing: line[lower..<upper]), as: UTF8.self))
    }
}
