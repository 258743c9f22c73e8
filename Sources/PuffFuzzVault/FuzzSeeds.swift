// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// Seeds for every input mode of ``VaultCheck``, made with the vault's own encoders and sealed
/// under the fixed key, so the fuzzer starts from inputs that open (`PuffFuzzVault --write-seeds`
/// writes them to `fuzz/corpus/vault`). The golden vault's files are the other seeds.
enum FuzzSeeds {
    /// One item record's contents.
    private struct Entry {
        let kind: VaultRecord.Kind
        let number: UInt64
        let plaintext: SecureBytes
        let attributes: AttributeList?
    }

    /// A collection record, three items, the second deleted, the third overwritten; a hidden
    /// collection's record carries its id's aliases.
    private static func entries(hidden: Bool = false) -> [Entry] {
        let collection = CollectionFields(
            id: FuzzKeys.collection.rawValue, label: "Fuzz", created: 100, modified: 100, nextItemNumber: 1,
            aliases: hidden ? ["fuzzy"] : [])
        func item(_ number: UInt64, _ label: String, _ attributes: [String: String], _ secret: [UInt8]) -> Entry {
            let fields = ItemFields(
                label: label, attributes: AttributeList(attributes), type: number == 2 ? "org.example.Key" : "",
                contentType: number == 2 ? "application/octet-stream" : "text/plain", created: 100 + number,
                modified: 100 + number)
            return Entry(
                kind: .item, number: number, plaintext: fields.plaintext(secret: SecureBytes(unwipedCopyOf: secret)),
                attributes: fields.attributes)
        }
        return [
            Entry(kind: .collection, number: 0, plaintext: collection.plaintext(), attributes: nil),
            item(1, "one", ["service": "example.org", "user": "ann", "xdg:schema": "org.example.Password"], [0x61]),
            item(2, "two", [:], [0x00, 0xFF, 0xC3, 0x28]),
            item(3, "three", ["k": "v"], Array("secret three".utf8)),
            Entry(kind: .itemDeleted, number: 2, plaintext: DeletionPayload.plaintext(time: 120), attributes: nil),
            item(3, "three again", ["k": "w", "ünï": "cødé"], []),
        ]
    }

    /// The entries sealed as the daemon seals them; tags only when `tagged`.
    private static func records(tagged: Bool, hidden: Bool = false) -> [[UInt8]] {
        var link = VaultRecord.Link.first(1)
        return entries(hidden: hidden).map { entry in
            let record = VaultRecord(
                kind: entry.kind, number: entry.number,
                tags: tagged ? entry.attributes.map(FuzzKeys.tags(of:)) ?? [] : [], plaintext: entry.plaintext,
                space: FuzzKeys.space, sealer: FuzzKeys.sealer, link: link)
            link = VaultRecord.Link(sequence: link.sequence + 1, previous: record.mac)
            return record.encoded()
        }
    }

    private static func chunks(_ parts: [[UInt8]]) -> [UInt8] {
        parts.flatMap { [UInt8(truncatingIfNeeded: $0.count), UInt8(truncatingIfNeeded: $0.count >> 8)] + $0 }
    }

    private static func mode(_ mode: VaultCheck.Mode) -> [UInt8] { [mode.rawValue] }

    /// Every seed, by file name.
    static func all() -> [(name: String, bytes: [UInt8])] {
        let tagged = records(tagged: true)
        let plaintexts = entries().flatMap { entry -> [UInt8] in
            let kind: UInt8 = entry.kind == .item ? 0 : entry.kind == .itemDeleted ? 1 : 2
            let bytes = entry.plaintext.unprotectedArray()
            return [kind | 8, UInt8(entry.number)] + chunks([bytes])
        }
        let catalog = Catalog(hiddenKDF: .interactive)
        var withEntries = catalog
        withEntries.collections = [Catalog.Entry(space: FuzzKeys.space, id: FuzzKeys.collection.rawValue)]
        withEntries.aliases = ["default": FuzzKeys.collection.rawValue]
        var seeds: [(String, [UInt8])] = [
            ("gen-journal-file", VaultCheck.framed(tagged)),
            ("gen-records", mode(.records) + chunks(tagged)),
            ("gen-records-untagged", mode(.records) + chunks(records(tagged: false))),
            ("gen-plaintexts", mode(.plaintexts) + plaintexts),
            (
                "gen-header-file",
                ChecksummedFile.encode(FuzzKeys.visibleHeader.encoded(), magic: ChecksummedFile.headerMagic)
            ),
            ("gen-catalog-file", ChecksummedFile.encode(withEntries.encoded(), magic: ChecksummedFile.catalogMagic)),
            ("gen-payload-catalog-empty", mode(.payloads) + catalog.encoded()),
            ("gen-payload-record", mode(.payloads) + tagged[1]),
        ]
        for (index, entry) in entries().enumerated() {
            seeds.append(("gen-payload-\(index)-\(entry.kind)", mode(.payloads) + entry.plaintext.unprotectedArray()))
        }
        for (name, flags, tags) in [
            ("visible", VaultHeader.Flags(), true), ("private", [.private], false),
            ("hidden", [.private, .hidden], false),
        ] as [(String, VaultHeader.Flags, Bool)] {
            let header = FuzzKeys.header(flags: flags).encoded()
            seeds.append(("gen-payload-header-\(name)", mode(.payloads) + header))
            let body = records(tagged: tags, hidden: flags.contains(.hidden))
            seeds.append(("gen-collection-\(name)", mode(.collection) + chunks([header] + body)))
        }
        return seeds + slottedSeeds()
    }

    /// Version 3 headers: one per slot type, one with all six, one with the index key TPM-sealed,
    /// a private and a hidden one; each as a header file, a payload and a collection (mode 3).
    private static func slottedSeeds() -> [(name: String, bytes: [UInt8])] {
        var headers: [(String, VaultHeader, Bool)] = KeySlot.Kind.allCases.map { kind in
            ("v3-" + String("\(kind)".map { $0 == "+" ? "-" : $0 }), FuzzKeys.slottedHeader([kind]), true)
        }
        headers += [
            ("v3-all", FuzzKeys.slottedHeader(KeySlot.Kind.allCases), true),
            ("v3-tpm2-index", FuzzKeys.slottedHeader([.passcode, .tpm2], storage: .tpm2), true),
            ("v3-private", FuzzKeys.slottedHeader([.passcode, .recovery, .fido2], flags: [.private]), false),
            ("v3-hidden", FuzzKeys.slottedHeader([.passcode], flags: [.private, .hidden], storage: .none), false),
        ]
        return headers.flatMap { name, header, tagged -> [(String, [UInt8])] in
            let bytes = header.encoded()
            let body = records(tagged: tagged, hidden: header.flags.contains(.hidden))
            return [
                ("gen-header-file-\(name)", ChecksummedFile.encode(bytes, magic: ChecksummedFile.headerMagic)),
                ("gen-payload-header-\(name)", mode(.payloads) + bytes),
                ("gen-collection-\(name)", mode(.collection) + chunks([bytes] + body)),
            ]
        }
    }
}
