// SPDX-License-Identifier: Apache-2.0

/// The lines of a GKeyFile as gnome-keyring's textual keyring writes it (glib's
/// `g_key_file_to_data`): `[group]` headers, `key=value` lines, blank lines between groups. Kept
/// as lines with their numbers, not merged into a dictionary, so that a secret written raw with a
/// newline in it (gkm-secret-textual.c) shows as damage instead of being silently split.
struct GnomeKeyringKeyFile {
    /// One `key=value` line: the key as glib trims it and the value's raw bytes.
    struct Entry {
        var key: String
        var raw: [UInt8]
        var line: Int
    }

    /// A group with its entries in file order and the lines glib would accept that gnome-keyring
    /// never writes inside a group (blank lines or comments before its last entry).
    struct Group {
        var name: String
        var line: Int
        var entries: [Entry] = []
        var strayLines: [Int] = []
        /// Lines glib refuses (neither group, key nor comment), which make gnome-keyring refuse
        /// the whole file.
        var unparsable: [Int] = []

        func entries(_ key: String) -> [Entry] { entries.filter { $0.key == key } }
    }

    var groups: [Group] = []
    /// Lines before the first group that are not blank or comments.
    var unparsableBeforeGroups: [Int] = []

    init(_ bytes: [UInt8]) {
        var pendingBlank: [Int] = []
        var number = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let line = Array(rawLine)
            let start = line.firstIndex { !Self.isSpace($0) } ?? line.count
            let content = line[start...]
            if content.isEmpty || content.first == UInt8(ascii: "#") {
                if !groups.isEmpty { pendingBlank.append(number) }
                continue
            }
            // glib's group line: `[`, a name without `]`, `]`, then only spaces or tabs.
            if content.first == UInt8(ascii: "["), let close = content.firstIndex(of: UInt8(ascii: "]")),
                line[(close + 1)...].allSatisfy({ $0 == 0x20 || $0 == 0x09 })
            {
                let name = String(decoding: line[(start + 1)..<close], as: UTF8.self)
                groups.append(Group(name: name, line: number))
                pendingBlank = []
                continue
            }
            // glib's key line holds a `=` after a non-empty key.
            guard let equals = content.firstIndex(of: UInt8(ascii: "=")), equals > start, !groups.isEmpty else {
                if groups.isEmpty {
                    unparsableBeforeGroups.append(number)
                } else {
                    groups[groups.count - 1].unparsable.append(number)
                }
                continue
            }
            var keyEnd = equals
            while keyEnd > start, Self.isSpace(line[keyEnd - 1]) { keyEnd -= 1 }
            let key = String(decoding: line[start..<keyEnd], as: UTF8.self)
            groups[groups.count - 1].strayLines.append(contentsOf: pendingBlank)
            pendingBlank = []
            groups[groups.count - 1].entries.append(Entry(key: key, raw: Array(line[(equals + 1)...]), line: number))
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }

    /// A value as `g_key_file_get_string` returns it: leading whitespace and a trailing CR
    /// dropped, `\s \n \t \r \\` unescaped, other escapes kept as written; nil when not UTF-8.
    static func string(_ raw: [UInt8]) -> String? {
        var value = raw
        if value.last == 0x0d { value.removeLast() }
        let start = value.firstIndex { !isSpace($0) } ?? value.count
        var output: [UInt8] = []
        var index = start
        while index < value.count {
            let byte = value[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < value.count else {
                output.append(byte)
                continue
            }
            let escaped = value[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "s"): output.append(0x20)
            case UInt8(ascii: "n"): output.append(0x0a)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "r"): output.append(0x0d)
            case UInt8(ascii: "\\"): output.append(0x5c)
            default: output.append(contentsOf: [byte, escaped])
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    /// A number as gnome-keyring's `key_file_get_uint64` reads it (all digits).
    static func number(_ raw: [UInt8]) -> UInt64? {
        guard let text = string(raw), !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return UInt64(text)
    }
}
