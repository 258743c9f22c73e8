// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// Header, catalog, record and payload parsers on their own, each with its round trip: what a
/// parser accepts, the matching encoder writes back (byte for byte where the format has a single
/// spelling).
enum PayloadCheck {
    typealias Failure = VaultCheck.Failure

    /// A `<space>.header` file as `FileRecordStore.header(of:)` and `VaultLoader` read it.
    static func headerFile(_ file: [UInt8]) throws(Failure) -> VaultCheck.Outcome {
        guard let payload = try? ChecksummedFile.decode(file, magic: ChecksummedFile.headerMagic, name: "fuzz.header")
        else { return .rejected }
        guard ChecksummedFile.encode(payload, magic: ChecksummedFile.headerMagic) == file else {
            throw Failure("a header file does not encode back to its bytes")
        }
        _ = try header(payload)
        return .parsed
    }

    /// The `catalog` file as `FileRecordStore.catalog()` and `VaultLoader` read it.
    static func catalogFile(_ file: [UInt8]) throws(Failure) -> VaultCheck.Outcome {
        guard let payload = try? ChecksummedFile.decode(file, magic: ChecksummedFile.catalogMagic, name: "fuzz.catalog")
        else { return .rejected }
        guard ChecksummedFile.encode(payload, magic: ChecksummedFile.catalogMagic) == file else {
            throw Failure("a catalog file does not encode back to its bytes")
        }
        _ = try catalog(payload)
        return .parsed
    }

    /// A header, and its slots tried one by one under the fixed KEKs (a legacy slot under the
    /// fixed passcode key) as an unlock tries them; a version 3 header then has its MAC checked.
    /// The master is nil when no slot opened or the MAC failed (the service calls that damage).
    static func header(_ bytes: [UInt8]) throws(Failure) -> (header: VaultHeader, master: MasterKey?)? {
        guard let header = try? VaultHeader(decoding: bytes) else { return nil }
        guard header.encoded() == bytes else { throw Failure("a header does not encode back to its bytes") }
        guard header.version >= 1, header.version <= VaultHeader.slottedVersion else {
            throw Failure("a header of version \(header.version) was accepted")
        }
        let ids = Set(header.slots.map(\.id))
        guard (1...VaultHeader.maximumSlots).contains(header.slots.count), ids.count == header.slots.count,
            header.slots.allSatisfy({ $0.id < header.nextSlotID && KeySlot.isValidLabel($0.label) }),
            !header.isLegacy || (header.slots.count == 1 && header.slots[0].kind == .passcode)
        else { throw Failure("a header outside the slot limits was accepted (\(header.slots.count) slots)") }
        var master: MasterKey?
        for slot in header.slots {
            let kek = header.isLegacy ? FuzzKeys.passcodeKey : FuzzKeys.kek(slot.kind)
            guard let opened = try? header.unwrapMaster(slot, kek: kek) else { continue }
            // Only the harness's own wraps open, and it wraps one key.
            guard opened.isSame(as: FuzzKeys.master) else { throw Failure("slot \(slot.id) opened to another key") }
            master = opened
        }
        guard let master, !header.isLegacy else { return (header, master) }
        guard (try? header.verifyMAC(with: master)) != nil else { return (header, nil) }
        var resealed = header
        resealed.sealMAC(with: master)
        guard resealed.encoded() == bytes else { throw Failure("a header that verifies seals to other bytes") }
        if header.indexStorage == .tpm2, let key = try? header.unwrapIndexKey(master: master), key.count != 32 {
            throw Failure("an index wrap that authenticates holds \(key.count) bytes")
        }
        return (header, master)
    }

    static func catalog(_ bytes: [UInt8]) throws(Failure) -> Bool {
        guard let catalog = try? Catalog(decoding: bytes) else { return false }
        guard (try? Catalog(decoding: catalog.encoded())) == catalog else {
            throw Failure("a catalog does not read back as itself")
        }
        return true
    }

    /// `u16 length | header`, then record chunks: one collection, read as start-up and unlock
    /// read it (scan unless private, open if the wrapped key opens under the fixed passcode key).
    static func collection(_ input: inout InputCursor) throws(Failure) -> VaultCheck.Outcome {
        let bytes = input.take(input.u16() ?? 0)
        guard let (header, master) = try header(bytes) else { return .rejected }
        let journal = VaultCheck.framed(input.chunks())
        guard let parsed = try? JournalFraming.parse(journal, file: "fuzz.journal") else {
            throw Failure("a journal framed by the harness was refused")
        }
        try VaultCheck.checkFraming(journal, parsed.records, goodEnd: parsed.goodEnd)
        return try CollectionCheck.run(parsed.records, header: header, master: master) ? .opened : .parsed
    }

    /// Every parser on `bytes`.
    static func payloads(_ bytes: [UInt8]) throws(Failure) -> VaultCheck.Outcome {
        var accepted = try header(bytes) != nil
        accepted = try catalog(bytes) || accepted
        accepted = try record(bytes) || accepted
        let plaintext = SecureBytes(unwipedCopyOf: bytes)
        accepted = try item(plaintext) || accepted
        accepted = try collectionFields(plaintext) || accepted
        accepted = try deletion(plaintext) || accepted
        accepted = try settings(plaintext) || accepted
        return accepted ? .parsed : .rejected
    }

    /// A record; its box opened with the fixed key (almost always the AEAD's failure path).
    static func record(_ bytes: [UInt8]) throws(Failure) -> Bool {
        guard let record = try? VaultRecord(decoding: bytes) else { return false }
        guard record.encoded() == bytes, record.tags.count % 16 == 0, record.box.count >= SecretSealer.overhead else {
            throw Failure("a record does not encode back to its bytes")
        }
        if let plaintext = try? record.open(space: FuzzKeys.space, sealer: FuzzKeys.sealer) {
            switch record.kind {
            case .item: _ = try item(plaintext)
            case .itemDeleted: _ = try deletion(plaintext)
            case .collection: _ = try collectionFields(plaintext)
            case .itemSettings: _ = try settings(plaintext)
            case .appRules: _ = try appRules(plaintext)
            }
        }
        return true
    }

    /// An item record's plaintext: parsed with and without its secret, written again, parsed again.
    static func item(_ plaintext: SecureBytes) throws(Failure) -> Bool {
        guard let (fields, secret) = try? ItemFields.parse(plaintext, wantsSecret: true) else { return false }
        guard let secret, let (bare, none) = try? ItemFields.parse(plaintext, wantsSecret: false), none == nil,
            same(bare, fields)
        else { throw Failure("parsing an item without its secret gives other fields") }
        guard let (again, secretAgain) = try? ItemFields.parse(fields.plaintext(secret: secret), wantsSecret: true),
            let secretAgain, same(again, fields), secretAgain.constantTimeEquals(secret)
        else { throw Failure("an item does not read back as itself (\(fields.attributes.count) attributes)") }
        return true
    }

    static func collectionFields(_ plaintext: SecureBytes) throws(Failure) -> Bool {
        guard let fields = try? CollectionFields(parsing: plaintext) else { return false }
        guard fields.plaintext().unprotectedArray() == plaintext.unprotectedArray() else {
            throw Failure("collection fields do not encode back to their bytes")
        }
        return true
    }

    static func deletion(_ plaintext: SecureBytes) throws(Failure) -> Bool {
        guard let time = try? DeletionPayload.time(plaintext) else { return false }
        guard DeletionPayload.plaintext(time: time).unprotectedArray() == plaintext.unprotectedArray() else {
            throw Failure("a deletion does not encode back to its bytes")
        }
        return true
    }

    static func settings(_ plaintext: SecureBytes) throws(Failure) -> Bool {
        guard let settings = try? ItemSettings(parsing: plaintext) else { return false }
        guard settings.plaintext().unprotectedArray() == plaintext.unprotectedArray() else {
            throw Failure("item settings do not encode back to their bytes")
        }
        return true
    }

    static func appRules(_ plaintext: SecureBytes) throws(Failure) -> Bool {
        guard let rules = try? ItemSettings.appRules(parsing: plaintext) else { return false }
        guard ItemSettings(appRules: rules).appRulesPlaintext().unprotectedArray() == plaintext.unprotectedArray()
        else {
            throw Failure("app rules do not encode back to their bytes")
        }
        return true
    }

    private static func same(_ a: ItemFields, _ b: ItemFields) -> Bool {
        a.label == b.label && a.type == b.type && a.contentType == b.contentType && a.created == b.created
            && a.modified == b.modified
            && a.attributes.pairs.map { Array($0.name.utf8) + [0] + Array($0.value.utf8) }
                == b.attributes.pairs.map { Array($0.name.utf8) + [0] + Array($0.value.utf8) }
    }
}
