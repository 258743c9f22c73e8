// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto
package import PuffStore

/// A locked collection as its journal shows it without a key: items by number holding their
/// records (not opened), and the blind index from the records' tags.
package struct ScannedCollection: Sendable {
    package var items = ItemTable()
    var index: AttributeIndex
    var hasher: KeyedHash
    package var collectionRecord: [UInt8]?
    /// The newest deletion record: its time may be the collection's `Modified`.
    package var deletionRecord: [UInt8]?
    package var deadRecords = 0
    package var nextNumber: UInt64 = 1
    /// Each live item's newest settings records, sealed: not needed to list or search a locked
    /// collection, kept so unlocking and compaction find them.
    package var settingsRecords: [UInt64: SettingsRecords] = [:]
    /// The journal's format (1 unchained, 2 chained).
    package var format: UInt8 = VaultRecord.currentFormat
    /// The newest record that counted, as its clear prefix says (not authenticated), with the
    /// digest of the records that counted (``ChainDigest``).
    var tip: JournalChain.Tip?
    /// The head's slots that parse (not authenticated yet: the unlock does).
    var heads: [JournalHead] = []
    /// Whether it started from an index snapshot, and the snapshot's seal, if it had one: an
    /// unlock in place trusts what the snapshot said only if the seal authenticates.
    var fromSnapshot = false
    var snapshotSeal: IndexSnapshot.Seal?
    /// What the clear prefixes show to be wrong (records left out, a cut-off end).
    package var damage: [String] = []
    /// The chain's first record's sequence (a snapshot keeps it; nil for format 1 or no records).
    package var firstSequence: UInt64?
    /// Whether the header keeps its index key sealed by the TPM (index storage 2) and the scan had
    /// no unsealed key: the tags answer nothing until an unlock unwraps the key.
    var waitsForIndexKey = false
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
    /// The newest collection record, and each live item's newest settings records: what a later
    /// unlock opens again instead of reading the journal.
    var collectionRecord: [UInt8]? = nil
    var settingsRecords: [UInt64: SettingsRecords] = [:]
    /// The journal's format (1 unchained, 2 chained).
    package var format: UInt8 = VaultRecord.currentFormat
    /// The newest record that counted, with the records' digest and the collection's `Modified`;
    /// nil for a format 1 journal.
    var tip: JournalChain.Tip?
    /// Records left out and what else is wrong; empty when every record authenticated in place.
    package var damage: [String] = []
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
    /// Applies the journal's records in order without opening them. A record whose prefix does
    /// not parse, or that the chain leaves out, is skipped and named in ``ScannedCollection/damage``.
    /// `indexKey` is the index key a header of index storage 2 keeps sealed, as the TPM unsealed it.
    ///
    /// With `snapshot` (``IndexSnapshot``), the scan starts from what it says of the journal up to
    /// its length, and `replay` holds the records from the last one it covers on (checked by the
    /// caller, ``VaultLoader``): only the records after it are read.
    package static func scan(
        _ replay: JournalReplay, header: VaultHeader, file: String, indexKey: SecureBytes? = nil,
        resuming snapshot: IndexSnapshot? = nil
    ) -> ScannedCollection {
        let hasher = Self.indexHasher(header: header, master: nil, unsealed: indexKey)!
        var scanned = ScannedCollection(index: AttributeIndex(hasher: hasher), hasher: hasher)
        scanned.waitsForIndexKey = header.indexStorage == .tpm2 && indexKey == nil
        scanned.format = replay.version
        let heads = replay.heads.compactMap { try? JournalHead(decoding: $0) }
        scanned.heads = heads
        var chain = JournalChain(file: file, head: JournalChain.newest(heads))
        var seen = 0
        var records = replay.records[...]
        // The index keys of items the snapshot brought, by number, made when a later record first
        // replaces or deletes one of them (their records are not read).
        var snapshotTags: [UInt64: [UInt8]]?
        if let snapshot {
            seen = seed(&scanned, from: snapshot, hasher: hasher, collection: header.collectionID ?? "")
            if replay.version >= 2 {
                let digest = snapshot.located.chainDigest
                chain.resume(
                    at: JournalChain.Tip(
                        sequence: snapshot.tipSequence, tag: snapshot.lastTag,
                        digest: digest.count == ChainDigest.length ? ChainDigest(bytes: digest) : .empty),
                    first: snapshot.firstSequence)
            }
            records = records.dropFirst()  // the last record the snapshot covers
        }
        var damaged = replay.damaged[...]
        for stored in records {
            chain.skipDamage(&damaged, before: stored.offset)
            let record: VaultRecord
            do {
                record = try VaultRecord(decoding: stored.bytes, format: replay.version)
            } catch {
                chain.skip(at: stored.offset, "\(error)")
                continue
            }
            guard chain.admit(record, offset: stored.offset) else { continue }
            seen += 1
            scanned.nextNumber = max(scanned.nextNumber, record.number + 1)
            if scanned.firstSequence == nil { scanned.firstSequence = record.link?.sequence }
            switch record.kind {
            case .collection:
                scanned.collectionRecord = stored.bytes
            case .itemSettings, .appRules:
                scanned.settingsRecords[record.number, default: SettingsRecords()].note(stored.bytes)
            case .item, .itemDeleted:
                if let old = scanned.items[record.number] {
                    var oldTags: [UInt8] = []
                    if case .at(let locator) = old.record, let bytes = Self.bytes(at: locator, in: replay.records) {
                        oldTags = (try? VaultRecord(decoding: bytes, format: replay.version).tags) ?? []
                    } else if let snapshot {
                        if snapshotTags == nil { snapshotTags = snapshot.keys.keysByNumber() }
                        oldTags = snapshotTags?[record.number] ?? []
                    }
                    oldTags.withUnsafeBytes { scanned.index.remove(record.number, tags: $0) }
                    scanned.items[record.number] = nil
                }
                guard record.kind == .item else {
                    scanned.settingsRecords[record.number] = nil
                    scanned.deletionRecord = stored.bytes
                    continue
                }
                var item = StoredItem(
                    collection: header.collectionID ?? "", number: record.number, label: "", attributes: [:],
                    type: "", contentType: "", sealedSecret: [], created: 0, modified: 0)
                item.record = .at(
                    RecordLocator(offset: stored.offset, record: stored.bytes, sequence: record.link?.sequence))
                item.isOpened = false
                scanned.items[record.number] = item
                // Only `always` searches from the tags; others write none (a crash while the mode
                // changed may leave some, which then count for nothing).
                if header.lockedSearch == .always {
                    record.tags.withUnsafeBytes { scanned.index.insert(record.number, tags: $0) }
                }
            }
        }
        chain.skipDamage(&damaged, before: .max)
        if replay.version >= 2 {
            chain.finish(hasRecords: !replay.records.isEmpty, headFound: !replay.heads.isEmpty)
            scanned.tip = chain.tip
        }
        scanned.damage = chain.damage
        if scanned.collectionRecord == nil {
            scanned.damage.append("\(file) has no collection record: the journal was emptied or cut")
        }
        // Settings of a number that holds no item describe nothing.
        scanned.settingsRecords = scanned.settingsRecords.filter { scanned.items[$0.key] != nil }
        scanned.deadRecords =
            seen - scanned.items.count - scanned.settingsRecords.recordCount
            - (scanned.collectionRecord == nil ? 0 : 1)
        return scanned
    }

    /// Opens every record with `master`'s record key and builds the collection's memory form.
    ///
    /// A record that does not authenticate, or that the chain leaves out (``JournalChain``), is
    /// skipped and named in ``OpenedCollection/damage``: every record that authenticates in its
    /// place still counts (issue 24 item 20).
    ///
    /// - Parameter journal: The journal as replayed (empty for a new collection).
    /// - Throws: ``VaultDamage`` only when the keys cannot be made, or a visible collection
    ///   has no collection record left and `initial` gives none.
    package static func open(
        _ journal: JournalReplay, header: VaultHeader, master: MasterKey, id: CollectionID, file: String,
        fields initial: CollectionFields? = nil
    ) throws(VaultDamage) -> OpenedCollection {
        guard let sealer = try? SecretSealer(key: master.subkey(.records)),
            let hasher = indexHasher(header: header, master: master)
        else { throw VaultDamage(message: "\(file): the collection's keys could not be made") }
        var items = ItemTable()
        var settings: [UInt64: ItemSettings] = [:]
        var settingsRecords: [UInt64: SettingsRecords] = [:]
        var collectionRecord: [UInt8]?
        var index = AttributeIndex(hasher: hasher)
        var fields = initial
        var nextNumber: UInt64 = 1
        var modified: UInt64 = 0
        var seen = 0
        var collectionRecords = 0
        let heads = journal.heads.compactMap { try? JournalHead(decoding: $0) }.filter {
            $0.authenticates(space: header.space, sealer: sealer)
        }
        var chain = JournalChain(file: file, head: JournalChain.newest(heads))
        var damaged = journal.damaged[...]
        for stored in journal.records {
            chain.skipDamage(&damaged, before: stored.offset)
            let record: VaultRecord
            let plaintext: SecureBytes
            do {
                record = try VaultRecord(decoding: stored.bytes, format: journal.version)
                plaintext = try record.open(space: header.space, sealer: sealer)
            } catch {
                chain.skip(at: stored.offset, "record does not authenticate (\(error))")
                continue
            }
            guard chain.admit(record, offset: stored.offset) else { continue }
            do {
                switch record.kind {
                case .collection:
                    fields = try CollectionFields(parsing: plaintext)
                    collectionRecord = stored.bytes
                    collectionRecords += 1
                case .itemSettings, .appRules:
                    settings[record.number] = try (settings[record.number] ?? ItemSettings())
                        .applying(record.kind, plaintext)
                    settingsRecords[record.number, default: SettingsRecords()].note(stored.bytes)
                case .itemDeleted:
                    let time = try DeletionPayload.time(plaintext)
                    settings[record.number] = nil
                    settingsRecords[record.number] = nil
                    modified = max(modified, time)
                    if let old = items[record.number] {
                        index.remove(record.number, attributes: old.attributeList)
                        items[record.number] = nil
                    }
                case .item:
                    let itemFields = try ItemFields.parse(plaintext, wantsSecret: false).0
                    var item = StoredItem(
                        collection: id.rawValue, number: record.number, label: itemFields.label, attributes: [:],
                        type: itemFields.type, contentType: itemFields.contentType, sealedSecret: [],
                        created: itemFields.created, modified: itemFields.modified)
                    item.attributeList = itemFields.attributes
                    if header.lockedSearch == .always, !record.tags.isEmpty,
                        record.tags != index.tags(of: item.attributeList)
                    {
                        // The record authenticated: the header's index key is not the one it was written with.
                        chain.note(at: stored.offset, "the record's index tags do not match its attributes")
                    }
                    // The record is the item's only sealed form (no second seal for memory), read
                    // again from the journal when touched.
                    item.record = .at(
                        RecordLocator(offset: stored.offset, record: stored.bytes, sequence: record.link?.sequence))
                    if let old = items[record.number] { index.remove(record.number, attributes: old.attributeList) }
                    items[record.number] = item
                    index.insert(record.number, attributes: item.attributeList)
                    modified = max(modified, item.modified)
                }
            } catch {
                chain.note(at: stored.offset, "\(error)")
                continue
            }
            seen += 1
            nextNumber = max(nextNumber, record.number + 1)
        }
        if journal.version >= 2 {
            chain.finish(hasRecords: !journal.records.isEmpty, headFound: !journal.heads.isEmpty)
        }
        var damage = chain.damage
        if fields == nil, let visible = header.collectionID {
            // Its collection record is lost: the items still open, under the header's id.
            damage.append("\(file) has no collection record that authenticates: label and times are lost")
            fields = CollectionFields(
                id: visible, label: visible, created: 0, modified: 0, nextItemNumber: 1, aliases: [])
        }
        guard var fields else { throw VaultDamage(message: "\(file) has no collection record") }
        fields.nextItemNumber = max(fields.nextItemNumber, nextNumber)
        fields.modified = max(fields.modified, modified)
        settings = settings.filter { items[$0.key] != nil }
        settingsRecords = settingsRecords.filter { items[$0.key] != nil }
        var tip = chain.tip
        tip?.modified = fields.modified
        // The newest collection record is live; a new collection's fields come from no record.
        let dead = seen - items.count - settingsRecords.recordCount - min(collectionRecords, 1)
        return OpenedCollection(
            fields: fields, items: items, index: index, hasher: hasher, sealer: sealer, deadRecords: dead,
            auditSealer: try? SecretSealer(key: master.subkey(.audit)),
            settings: settings, collectionRecord: collectionRecord, settingsRecords: settingsRecords,
            format: journal.version, tip: journal.version >= 2 ? tip : nil, damage: damage)
    }
}
