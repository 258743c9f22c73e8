// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Reading an item's record: by its locator or from memory, checked to be that item's, opened
/// with the record key; and closing an item again to its locked form.
extension CollectionVault {
    /// Names item `number`'s record as one that does not open (the collection then takes no
    /// writes): it does not authenticate, or the journal no longer holds it where it was read.
    @discardableResult
    func noteUnreadable(_ number: UInt64, _ error: any Error) -> String {
        guard let space else { return "item \(number)'s record does not open" }
        let why =
            if case StoreError.damaged(let file, _, let reason) = error {
                // The store names its journal, in its own terms (a path, a key).
                "\(file): item \(number)'s record cannot be read: \(reason)"
            } else {
                "\(StoreObject.journal(space).localName): item \(number)'s record does not authenticate"
            }
        noteDamage([why])
        return why
    }

    /// `item`'s newest record opened: read (by its locator from `store`, or from memory), checked
    /// to be that item's and, read by a locator, the very record meant, then authenticated.
    ///
    /// - Throws: ``StoreError`` when it cannot be read, else when it does not parse or authenticate.
    static func openRecord(
        of item: StoredItem, space: SpaceID, sealer: SecretSealer, format: UInt8, from store: (any RecordStore)?
    ) throws -> SecureBytes {
        let bytes: [UInt8]
        var locator: RecordLocator?
        switch item.record {
        case .none: throw CryptoError.wrongKey
        case .bytes(let kept): bytes = kept
        case .at(let at):
            guard let store else { throw StoreError.noSuchSpace(space) }
            bytes = try store.read(at, in: space)
            locator = at
        }
        let record = try VaultRecord(decoding: bytes, format: format)
        guard record.kind == .item, record.number == item.number, locator?.names(record) ?? true else {
            throw CryptoError.wrongKey
        }
        return try record.open(space: space, sealer: sealer)
    }

    /// `item` with the label, attributes, type and times its record holds.
    ///
    /// - Throws: when the record cannot be read, or does not parse or authenticate.
    static func opened(
        _ item: StoredItem, space: SpaceID, sealer: SecretSealer, format: UInt8, from store: (any RecordStore)?
    ) throws -> StoredItem {
        var item = item
        let plaintext = try openRecord(of: item, space: space, sealer: sealer, format: format, from: store)
        let fields = try ItemFields.parse(plaintext, wantsSecret: false).0
        item.label = fields.label
        item.attributeList = fields.attributes
        item.type = fields.type
        item.contentType = fields.contentType
        item.created = fields.created
        item.modified = fields.modified
        item.isOpened = true
        return item
    }

    /// What an unlock's announcement opens the items it names with (``LockView``), off the actor
    /// and only for the items a client read: nil while locked. An item whose record does not open
    /// keeps its locked view.
    var viewOpener: (@Sendable (StoredItem) -> StoredItem)? {
        guard !isLocked, let sealer, let space else { return nil }
        let (format, records) = (format, records)
        return { item in
            guard !item.isOpened, !item.record.isNone else { return item }
            return (try? CollectionVault.opened(item, space: space, sealer: sealer, format: format, from: records))
                ?? item
        }
    }

    /// `item` in its locked form, read again from its record when touched; nil for an item that
    /// could not be read again (it has no record, or its secret is sealed apart).
    static func closed(_ item: StoredItem) -> StoredItem? {
        guard item.isOpened, !item.record.isNone, item.sealedSecret.isEmpty else { return nil }
        var closed = StoredItem(
            collection: item.collection, number: item.number, label: "", attributes: [:], type: "", contentType: "",
            sealedSecret: [], created: 0, modified: 0)
        closed.record = item.record
        closed.isOpened = false
        return closed
    }

    /// Points every item at its record in the journal just written whole as `written` (a
    /// compaction or repair moved every record; the locators held point into the old file).
    func relocate(after written: [[UInt8]]) {
        var offset = UInt64(JournalFraming.preamble.count)
        for bytes in written {
            let locator = RecordLocator(offset: offset, length: UInt32(bytes.count), sequence: 0)
            offset = locator.end
            guard let record = try? VaultRecord(decoding: bytes, format: VaultRecord.currentFormat),
                record.kind == .item, var item = table[record.number]
            else { continue }
            item.record = .at(RecordLocator(offset: locator.offset, record: bytes, sequence: record.link?.sequence))
            table[record.number] = item
        }
    }
}
