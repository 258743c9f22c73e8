// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Writes a collection's journal anew, chained (compaction, and the upgrade of a format 1
/// journal): the records ``JournalCompaction`` keeps are opened and sealed again at new places,
/// numbered on from the old chain, the first naming no predecessor. Needs the record key, so a
/// locked collection is not compacted. Runs off the actor.
enum JournalResealing {
    struct Result: Sendable {
        var records: [[UInt8]]
        /// The new newest record; nil when nothing is kept.
        var tip: JournalChain.Tip?
        /// The head naming ``tip``, sealed.
        var head: [UInt8]?
        var deadRecords: Int
    }

    /// Checks that every record of `journal` authenticates in its place and that the chain ends
    /// at `expected` (what the service last appended), then seals the kept records from
    /// sequence number `start` on.
    ///
    /// - Throws: ``VaultDamage`` naming what does not hold; nothing is written then.
    static func reseal(
        _ journal: JournalReplay, space: SpaceID, sealer: SecretSealer, expected: JournalChain.Tip?, start: UInt64,
        file: String
    ) throws(VaultDamage) -> Result {
        let heads = journal.heads.compactMap { try? JournalHead(decoding: $0) }.filter {
            $0.authenticates(space: space, sealer: sealer)
        }
        var chain = JournalChain(file: file, head: JournalChain.newest(heads))
        for stored in journal.records {
            guard let record = try? VaultRecord(decoding: stored.bytes, format: journal.version),
                (try? record.open(space: space, sealer: sealer)) != nil
            else {
                throw VaultDamage(
                    message: "\(file) is damaged at offset \(stored.offset): record does not authenticate")
            }
            if let link = record.link { _ = chain.admit(link, mac: record.mac, offset: stored.offset) }
        }
        if journal.version >= 2 {
            chain.finish(hasRecords: !journal.records.isEmpty, headFound: !journal.heads.isEmpty)
            if let first = chain.damage.first { throw VaultDamage(message: first) }
            guard chain.tip == expected else {
                throw VaultDamage(message: "\(file) changed on disk while puffd had it open")
            }
        }
        let kept = try JournalCompaction.kept(journal.records, format: journal.version, file: file)
        var result = Result(records: [], tip: nil, head: nil, deadRecords: kept.deadRecords)
        result.records.reserveCapacity(kept.records.count)
        var link = VaultRecord.Link.first(start)
        var last: VaultRecord?
        for bytes in kept.records {
            guard let old = try? VaultRecord(decoding: bytes, format: journal.version),
                let plaintext = try? old.open(space: space, sealer: sealer)
            else { throw VaultDamage(message: "\(file): a kept record no longer authenticates") }
            let record = VaultRecord(
                kind: old.kind, number: old.number, tags: old.tags, plaintext: plaintext, space: space, sealer: sealer,
                link: link)
            result.records.append(record.encoded())
            link = VaultRecord.Link(sequence: link.sequence + 1, previous: record.mac)
            last = record
        }
        if let last, let sequence = last.link?.sequence {
            result.tip = JournalChain.Tip(sequence: sequence, tag: last.mac)
            result.head = JournalHead(of: last, space: space, sealer: sealer).encoded()
        }
        return result
    }
}
