// SPDX-License-Identifier: Apache-2.0
import PuffStore

/// Which records of a journal a compaction keeps, read from their clear prefixes alone
/// (``JournalResealing`` then seals them again at their new places in the chain).
enum JournalCompaction {
    /// The records to keep, in journal order with the collection record first, and how many of
    /// them describe no live item (kept deletions).
    struct Kept {
        var records: [[UInt8]]
        var deadRecords: Int
    }

    /// Keeps the newest collection record, each live item's newest record and its newest settings
    /// record of each kind (access settings, app rules). A deletion record
    /// is kept only when reading the journal again needs it: the one holding the highest item
    /// number ever used (so a deleted number is never handed out again), and the newest one when
    /// no kept record follows it (its time is the collection's `Modified`).
    ///
    /// - Throws: ``VaultDamage`` naming the offset of a record whose prefix does not parse.
    static func kept(_ records: [JournalReplay.Record], format: UInt8, file: String) throws(VaultDamage) -> Kept {
        var collection: Int?
        var newest: [UInt64: Int] = [:]
        var deletion: [UInt64: Int] = [:]
        // Each live item's newest settings record of each kind (4 and 5).
        var settings: [UInt64: [VaultRecord.Kind: Int]] = [:]
        var lastDeletion: Int?
        var highest: UInt64 = 0
        for (position, stored) in records.enumerated() {
            let record: VaultRecord
            do {
                record = try VaultRecord(decoding: stored.bytes, format: format)
            } catch {
                throw VaultDamage(message: "\(file) is damaged at offset \(stored.offset): \(error)")
            }
            switch record.kind {
            case .collection:
                collection = position
            case .item:
                newest[record.number] = position
                deletion[record.number] = nil
                highest = max(highest, record.number)
            case .itemSettings, .appRules:
                settings[record.number, default: [:]][record.kind] = position
            case .itemDeleted:
                newest[record.number] = nil
                settings[record.number] = nil
                deletion[record.number] = position
                lastDeletion = position
                highest = max(highest, record.number)
            }
        }
        var keptDeletions = Set<Int>()
        if let position = deletion[highest] { keptDeletions.insert(position) }
        let lastLive = max(collection ?? -1, newest.values.max() ?? -1)
        if let lastDeletion, lastDeletion > lastLive { keptDeletions.insert(lastDeletion) }
        // A live item's newest settings; those of deleted (or never created) items go.
        let liveSettings = settings.filter { newest[$0.key] != nil }.values.flatMap(\.values)
        let rest = (Array(newest.values) + Array(liveSettings) + Array(keptDeletions)).sorted()
        return Kept(
            records: ((collection.map { [$0] } ?? []) + rest).map { records[$0].bytes },
            deadRecords: keptDeletions.count)
    }
}
