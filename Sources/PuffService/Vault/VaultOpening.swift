// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto
package import PuffStore

/// A locked collection as its journal shows it without a key: items by number holding their
/// sealed records, and the blind index from the records' tags.
package struct ScannedCollection: Sendable {
    package var items = ItemTable()
    var index: AttributeIndex
    var hasher: KeyedHash
    package var collectionRecord: [UInt8]?
    /// The newest deletion record: its time may be the collection's `Modified`.
    package var deletionRecord: [UInt8]?
    package var deadRecords = 0
    package var nextNumber: UInt64 = 1
    /// Each live item's newest settings record, sealed: not needed to list or search a locked
    /// collection, kept so unlocking and compaction find it.
    package var settingsRecords: [UInt64: [UInt8]] = [:]
}

/// An unlocked collection's contents, built off the service actor.
package struct OpenedCollection: Sendable {
    package var fields: CollectionFields
    package var items: ItemTable
    var index: AttributeIndex
    var hasher: KeyedHash
    var sealer: SecretSealer
    package var deadRecords: Int
    /// Seals the audit log (nil for the unpersisted `session` collection).
    var auditSealer: SecretSealer? = nil
    /// Live items' access settings, by item number; items without any are absent.
    package var settings: [UInt64: ItemSettings] = [:]
}

/// Why a collection's records could not be read.
package struct VaultDamage: Error {
    package let message: String
}

/// Reading a collection's records: without a key (scan) and with one (open). Runs off the actor.
///
/// `package` so the vault fuzz target (`PuffFuzzVault`, docs/fuzzing.md) runs this very code on
/// untrusted bytes.
package enum VaultOpening {
    /// Applies the journal's records in order without opening them.
    package static func scan(_ replay: JournalReplay, header: VaultHeader, file: String) throws(VaultDamage)
        -> ScannedCollection
    {
        let hasher = Self.indexHasher(header: header, master: nil)!
        var scanned = ScannedCollection(index: AttributeIndex(hasher: hasher), hasher: hasher)
        var seen = 0
        for stored in replay.records {
            let record: VaultRecord
            do {
                record = try VaultRecord(decoding: stored.bytes)
            } catch {
                throw VaultDamage(message: "\(file) is damaged at offset \(stored.offset): \(error)")
            }
            seen += 1
            scanned.nextNumber = max(scanned.nextNumber, record.number + 1)
            switch record.kind {
            case .collection:
                scanned.collectionRecord = stored.bytes
            case .itemSettings:
                scanned.settingsRecords[record.number] = stored.bytes
            case .item, .itemDeleted:
                if let old = scanned.items[record.number] {
                    let oldTags = (try? VaultRecord(decoding: old.sealedSecret).tags) ?? []
                    oldTags.withUnsafeBytes { scanned.index.remove(record.number, tags: $0) }
                    scanned.items[record.number] = nil
                }
                guard record.kind == .item else {
                    scanned.settingsRecords[record.number] = nil
                    scanned.deletionRecord = stored.bytes
                    continue
                }
                scanned.items[record.number] = StoredItem(
                    collection: header.collectionID ?? "", number: record.number, label: "", attributes: [:],
                    type: "", contentType: "", sealedSecret: stored.bytes, created: 0, modified: 0)
                record.tags.withUnsafeBytes { scanned.index.insert(record.number, tags: $0) }
            }
        }
        // Settings of a number that holds no item describe nothing.
        scanned.settingsRecords = scanned.settingsRecords.filter { scanned.items[$0.key] != nil }
        scanned.deadRecords =
            seen - scanned.items.count - scanned.settingsRecords.count - (scanned.collectionRecord == nil ? 0 : 1)
        return scanned
    }

    /// Opens every record with `master`'s record key and builds the collection's memory form.
    ///
    /// - Parameter records: Journal records in order (a replay, or a scan's live records).
    package static func open(
        _ records: [JournalReplay.Record], header: VaultHeader, master: MasterKey, id: CollectionID, file: String,
        fields initial: CollectionFields? = nil
    ) throws(VaultDamage) -> OpenedCollection {
        guard let sealer = try? SecretSealer(key: master.subkey(.records)),
            let hasher = indexHasher(header: header, master: master)
        else { throw VaultDamage(message: "\(file): the collection's keys could not be made") }
        var items = ItemTable()
        var settings: [UInt64: ItemSettings] = [:]
        var index = AttributeIndex(hasher: hasher)
        var fields = initial
        var nextNumber: UInt64 = 1
        var modified: UInt64 = 0
        var seen = 0
        var collectionRecords = 0
        for stored in records {
            let damaged = { (why: String) in
                VaultDamage(message: "\(file) is damaged at offset \(stored.offset): \(why)")
            }
            let record: VaultRecord
            let plaintext: SecureBytes
            do {
                record = try VaultRecord(decoding: stored.bytes)
                plaintext = try record.open(space: header.space, sealer: sealer)
            } catch {
                throw damaged("record does not authenticate (\(error))")
            }
            seen += 1
            nextNumber = max(nextNumber, record.number + 1)
            do {
                switch record.kind {
                case .collection:
                    fields = try CollectionFields(parsing: plaintext)
                    collectionRecords += 1
                case .itemSettings:
                    settings[record.number] = try ItemSettings(parsing: plaintext)
                case .itemDeleted:
                    settings[record.number] = nil
                    modified = max(modified, try DeletionPayload.time(plaintext))
                    if let old = items[record.number] {
                        index.remove(record.number, attributes: old.attributeList)
                        items[record.number] = nil
                    }
                case .item:
                    let (itemFields, secret) = try ItemFields.parse(plaintext, wantsSecret: true)
                    let itemID = ItemID(collection: id, number: record.number)
                    let sealed = sealer.seal(secret!, associatedData: SecretService.sealingContext(itemID))
                    if let old = items[record.number] { index.remove(record.number, attributes: old.attributeList) }
                    var item = StoredItem(
                        collection: id.rawValue, number: record.number, label: itemFields.label, attributes: [:],
                        type: itemFields.type, contentType: itemFields.contentType, sealedSecret: sealed,
                        created: itemFields.created, modified: itemFields.modified)
                    item.attributeList = itemFields.attributes
                    guard header.flags.contains(.private) || record.tags == index.tags(of: item.attributeList) else {
                        throw damaged("the record's index tags do not match its attributes")
                    }
                    items[record.number] = item
                    index.insert(record.number, attributes: item.attributeList)
                    modified = max(modified, item.modified)
                }
            } catch let error as VaultDamage {
                throw error
            } catch {
                throw damaged("\(error)")
            }
        }
        guard var fields else { throw VaultDamage(message: "\(file) has no collection record") }
        fields.nextItemNumber = max(fields.nextItemNumber, nextNumber)
        fields.modified = max(fields.modified, modified)
        settings = settings.filter { items[$0.key] != nil }
        // The newest collection record is live; a new collection's fields come from no record.
        let dead = seen - items.count - settings.count - min(collectionRecords, 1)
        return OpenedCollection(
            fields: fields, items: items, index: index, hasher: hasher, sealer: sealer, deadRecords: dead,
            auditSealer: try? SecretSealer(key: master.subkey(.audit)),
            settings: settings)
    }

    /// The blind index key: the header's (visible collections), or a sub-key of the master key
    /// for a private collection, whose index never leaves memory (nil while locked).
    static func indexHasher(header: VaultHeader, master: MasterKey?) -> KeyedHash? {
        if let key = header.indexKey { return try? KeyedHash(key: SecureBytes(unwipedCopyOf: key)) }
        guard let master else { return KeyedHash() }
        return try? KeyedHash(key: master.subkey(.blindIndex))
    }

    /// A scanned collection's live records, as ``open(_:header:master:id:file:)`` takes them.
    static func liveRecords(of vault: CollectionVault) -> [JournalReplay.Record] {
        var records: [JournalReplay.Record] = []
        records.reserveCapacity(vault.count + 1)
        if let collection = vault.pendingCollectionRecord { records.append(.init(offset: 0, bytes: collection)) }
        for number in vault.order { records.append(.init(offset: 0, bytes: vault.items[number]!.sealedSecret)) }
        for (_, settings) in vault.pendingSettingsRecords.sorted(by: { $0.key < $1.key }) {
            records.append(.init(offset: 0, bytes: settings))
        }
        if let deletion = vault.pendingDeletionRecord { records.append(.init(offset: 0, bytes: deletion)) }
        return records
    }
}
