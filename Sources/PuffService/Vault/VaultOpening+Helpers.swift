// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension VaultOpening {
    /// Starts `scanned` from what `snapshot` says (its locators, chain digest, collection and
    /// settings records when it has them); returns how many records it covers that counted.
    static func seed(
        _ scanned: inout ScannedCollection, from snapshot: IndexSnapshot, hasher: KeyedHash, collection: String
    ) -> Int {
        let located = snapshot.located
        scanned.index = AttributeIndex(hasher: hasher, flat: snapshot.keys)
        for (position, number) in snapshot.items.enumerated() {
            // Not opened; its record read by its locator when touched after an unlock (an unlock
            // in place needs the snapshot's seal to authenticate, else it reads the journal).
            var item = StoredItem(
                collection: collection, number: number, label: "", attributes: [:], type: "", contentType: "",
                sealedSecret: [], created: 0, modified: 0)
            item.isOpened = false
            if position < located.locators.count { item.record = .at(located.locators[position]) }
            scanned.items[number] = item
        }
        for (position, number) in snapshot.settings.enumerated() {
            // One entry per record: an item with both kinds is listed twice.
            scanned.settingsRecords[number, default: SettingsRecords()].note(
                position < located.settingsRecords.count ? located.settingsRecords[position] : [])
        }
        scanned.nextNumber = snapshot.nextNumber
        // Its bytes as the snapshot kept them (empty when it did not: an unlock then reads the journal).
        scanned.collectionRecord = snapshot.hasCollectionRecord ? located.collectionRecord : nil
        scanned.firstSequence = snapshot.firstSequence
        scanned.fromSnapshot = true
        scanned.snapshotSeal = snapshot.seal
        return Int(snapshot.deadRecords) + snapshot.items.count + snapshot.settings.count
            + (snapshot.hasCollectionRecord ? 1 : 0)
    }

    /// The bytes of the record `locator` names among `records` (sorted by offset), if there.
    static func bytes(at locator: RecordLocator, in records: [JournalReplay.Record]) -> [UInt8]? {
        var (low, high) = (0, records.count)
        while low < high {
            let middle = (low + high) / 2
            if records[middle].offset < locator.offset { low = middle + 1 } else { high = middle }
        }
        guard low < records.count, records[low].offset == locator.offset else { return nil }
        return records[low].bytes
    }

    /// The blind index key: the header's (locked search `always`: in the clear, or for index
    /// storage 2 unwrapped with the master key or as the TPM unsealed it, else a random key that
    /// finds nothing until the unlock), or else a sub-key of the master key, whose index never
    /// leaves memory (nil while locked): private collections, `after-unlock` and `never`.
    static func indexHasher(header: VaultHeader, master: MasterKey?, unsealed: SecureBytes? = nil) -> KeyedHash? {
        if let key = header.indexKey { return try? KeyedHash(key: SecureBytes(unwipedCopyOf: key)) }
        if header.indexStorage == .tpm2 {
            if let master, let key = try? header.unwrapIndexKey(master: master) { return try? KeyedHash(key: key) }
            if let unsealed, let hasher = try? KeyedHash(key: unsealed) { return hasher }
            return master == nil ? KeyedHash() : nil
        }
        guard let master else { return KeyedHash() }
        return try? KeyedHash(key: master.subkey(.blindIndex))
    }
}
