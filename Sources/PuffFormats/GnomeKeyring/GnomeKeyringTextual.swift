// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// gnome-keyring's textual keyring, which it writes for a collection whose password is empty
/// (gkm-secret-textual.c): a GKeyFile whose values are escaped but whose `secret=` is written
/// raw, so a secret holding a newline runs into the lines after it; gnome-keyring then serves a
/// phantom item (the real item lacks `mtime`/`ctime`, the phantom lacks `item-type`) or refuses
/// the file. This reader refuses a damaged file, naming the damage, unless asked to salvage the
/// intact items (docs/migration.md, "gnome-keyring textual").
public enum GnomeKeyringTextual: ForeignFileReader {
    public static let format = ForeignFormat.gnomeKeyring

    /// What a read gives: the collection and, when salvaging, what was left out and why.
    public struct Reading: Sendable {
        public var collection: PortableCollection
        /// One line per damaged item left out, naming lines, never a value.
        public var skipped: [String]
    }

    public static func recognises(_ prefix: [UInt8]) -> Bool {
        let lines = prefix.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for line in lines {
            let trimmed = line.drop { GnomeKeyringKeyFile.isSpace($0) }
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            return Array(trimmed.prefix(9)) == Array("[keyring]".utf8)
        }
        return false
    }

    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { false }

    /// Reads the whole file, refusing it when any item is damaged.
    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        try read(bytes, salvage: false).collection
    }

    /// Reads the whole file. A damaged item (a secret that ran into the following lines, a
    /// phantom, a line glib refuses) fails the read, naming every damaged item by its line; with
    /// `salvage`, the intact items are returned and the damaged ones listed in ``Reading/skipped``.
    public static func read(_ bytes: [UInt8], salvage: Bool) throws(ForeignFormatError) -> Reading {
        guard recognises(bytes) else { throw .notThisFormat(.gnomeKeyring) }
        let file = GnomeKeyringKeyFile(bytes)
        guard let header = file.groups.first, header.name == "keyring" else { throw .notThisFormat(.gnomeKeyring) }
        var damage: [String] = file.unparsableBeforeGroups.map { "line \($0) is not a key, group or comment" }
        for line in header.unparsable { damage.append("line \(line) is not a key, group or comment") }

        let groups = Array(file.groups.dropFirst())
        var items: [PortableItem] = []
        var skipped: [String] = []
        var index = 0
        while index < groups.count {
            let group = groups[index]
            index += 1
            guard !group.name.contains(":") else { continue }
            // gnome-keyring writes an item's group, then its attribute and access groups. Item
            // groups before the last of those, or after it without an item-type, are phantoms
            // cut from this item's secret.
            let runEnd = groups.lastIndex { $0.name.hasPrefix(group.name + ":") } ?? index - 1
            var phantoms: [GnomeKeyringKeyFile.Group] = []
            while index < groups.count,
                index <= runEnd || (!groups[index].name.contains(":") && groups[index].entries("item-type").isEmpty)
            {
                if !groups[index].name.contains(":") { phantoms.append(groups[index]) }
                index += 1
            }
            let problems =
                problems(of: group) + phantoms.map { "a phantom item at line \($0.line) cut from its secret" }
            if problems.isEmpty {
                items.append(try item(group, in: groups))
            } else {
                skipped.append("the item at line \(group.line): \(problems.joined(separator: "; "))")
            }
        }
        damage += skipped
        if !damage.isEmpty && !salvage {
            throw .damaged(
                damage.joined(separator: "; ") + " (a secret holding a newline corrupts a textual keyring;"
                    + " nothing was read; salvaging reads the \(items.count) intact item(s))")
        }
        let collection = PortableCollection(
            label: header.entries("display-name").last.flatMap { GnomeKeyringKeyFile.string($0.raw) } ?? "",
            items: items, created: header.entries("ctime").last.flatMap { GnomeKeyringKeyFile.number($0.raw) } ?? 0,
            modified: header.entries("mtime").last.flatMap { GnomeKeyringKeyFile.number($0.raw) } ?? 0)
        return Reading(collection: collection, skipped: damage)
    }

    /// The keys gnome-keyring writes in an item's group, in its order; anything else is damage.
    static let itemKeys = ["item-type", "display-name", "secret", "binary-secret", "mtime", "ctime"]

    /// What is wrong with an item's group, in words that name lines, never values.
    static func problems(of group: GnomeKeyringKeyFile.Group) -> [String] {
        var problems: [String] = []
        for line in group.unparsable { problems.append("line \(line) is not a key, group or comment") }
        for line in group.strayLines { problems.append("its secret runs into line \(line)") }
        for key in ["item-type", "mtime", "ctime"] where group.entries(key).count != 1 {
            problems.append(group.entries(key).isEmpty ? "it has no \(key)" : "it has \(key) more than once")
        }
        let keys = group.entries.map(\.key)
        if let unknown = group.entries.first(where: { !itemKeys.contains($0.key) }) {
            problems.append("its secret runs into line \(unknown.line)")
        } else if keys != itemKeys.filter({ keys.contains($0) }) || Set(keys).count != keys.count {
            problems.append("its keys are not in the order gnome-keyring writes them")
        }
        if let secret = group.entries("binary-secret").first, hexDecoded(secret.raw) == nil {
            problems.append("its binary secret at line \(secret.line) is not hex")
        }
        return problems
    }

    /// One intact item, mapped as gnome-keyring serves it; the secret exactly as written.
    static func item(_ group: GnomeKeyringKeyFile.Group, in groups: [GnomeKeyringKeyFile.Group])
        throws(ForeignFormatError) -> PortableItem
    {
        let type = group.entries("item-type").first.flatMap { GnomeKeyringKeyFile.string($0.raw) }.flatMap { Int32($0) }
        var secret = SecureBytes.empty
        if let raw = group.entries("secret").first?.raw {
            // Written raw (not escaped), so read raw: the bytes the writing daemon held.
            secret = SecureBytes(unwipedCopyOf: raw)
        } else if let hex = group.entries("binary-secret").first, let bytes = hexDecoded(hex.raw) {
            secret = bytes
        }
        var stored: [(name: String, value: GnomeKeyringFields.Value?)] = []
        var accessEntries = 0
        for attribute in groups where attribute.name.hasPrefix("\(group.name):attribute") {
            guard let name = attribute.entries("name").last.flatMap({ GnomeKeyringKeyFile.string($0.raw) }) else {
                continue
            }
            let value = attribute.entries("value").last.map(\.raw)
            if attribute.entries("type").last.flatMap({ GnomeKeyringKeyFile.string($0.raw) }) == "uint32" {
                // key_file_get_uint64 then a guint32 parameter: the low 32 bits.
                guard let number = value.flatMap(GnomeKeyringKeyFile.number) else { continue }
                stored.append((name, .uint32(UInt32(truncatingIfNeeded: number))))
            } else {
                stored.append((name, value.flatMap(GnomeKeyringKeyFile.string).map { .string($0) }))
            }
        }
        for access in groups where access.name.hasPrefix("\(group.name):acl") && !access.entries("path").isEmpty {
            accessEntries += 1
        }
        return PortableItem(
            label: group.entries("display-name").first.flatMap { GnomeKeyringKeyFile.string($0.raw) } ?? "",
            attributes: GnomeKeyringFields.served(stored, type: UInt32(bitPattern: type ?? 0)), secret: secret,
            contentType: GnomeKeyringBinary.contentType,
            created: group.entries("ctime").first.flatMap { GnomeKeyringKeyFile.number($0.raw) },
            modified: group.entries("mtime").first.flatMap { GnomeKeyringKeyFile.number($0.raw) },
            leftBehind: accessEntries == 0 ? [] : ["an access list of \(accessEntries) application(s)"])
    }

    /// egg_hex_decode: pairs of hex digits, either case, into secure memory; nil when not hex.
    static func hexDecoded(_ raw: [UInt8]) -> SecureBytes? {
        var text = raw
        if text.last == 0x0d { text.removeLast() }
        guard text.count % 2 == 0 else { return nil }
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48...57: byte - 48
            case 65...70: byte - 55
            case 97...102: byte - 87
            default: nil
            }
        }
        var valid = true
        let decoded = SecureBytes(count: text.count / 2) { (output: UnsafeMutableRawBufferPointer) in
            for index in 0..<text.count / 2 {
                guard let high = digit(text[2 * index]), let low = digit(text[2 * index + 1]) else {
                    valid = false
                    return
                }
                output[index] = high << 4 | low
            }
        }
        return valid ? decoded : nil
    }
}
