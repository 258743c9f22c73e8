// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Writes a collection's journal anew, chained (compaction, the upgrade of a format 1 journal, a
/// change of locked search, and a re-key): the records ``JournalCompaction`` keeps are opened and
/// sealed again at new places, numbered on from the old chain, the first naming no predecessor.
/// Needs the record key, so a locked collection is not compacted. Runs off the actor.
enum JournalResealing {
    /// Where a re-key seals the kept records: another space, under another record key.
    struct Target: Sendable {
        var space: SpaceID
        var sealer: SecretSealer
    }

    struct Result: Sendable {
        var records: [[UInt8]]
        /// The new newest record; nil when nothing is kept.
        var tip: JournalChain.Tip?
        /// The head naming ``tip``, sealed.
        var head: [UInt8]?
        var deadRecords: Int
    }

    /// The blind index tags the item records get when sealed again.
    enum Tagging: Sendable {
        /// The tags each had (compaction, repair).
        case kept
        /// Tags made from each item's attributes under this hasher, or none for nil: a change of
        /// the collection's locked search (issue 24 item 6).
        case remade(KeyedHash?)
    }

    /// Checks that every record of `journal` authenticates in its place and that the chain ends
    /// at `expected` (what the service last appended), then seals the kept records from
    /// sequence number `start` on, tagged as `tagging` says, in `target` when given (a re-key)
    /// else in place.
    ///
    /// `counting` is called once per record opened and once per record sealed (progress).
    ///
    /// - Throws: ``VaultDamage`` naming what does not hold; nothing is written then.
    static func reseal(
        _ journal: JournalReplay, space: SpaceID, sealer: SecretSealer, expected: JournalChain.Tip?, start: UInt64,
        file: String, tagging: Tagging = .kept, into target: Target? = nil, counting: (@Sendable () -> Void)? = nil
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
            _ = chain.admit(record, offset: stored.offset)
            counting?()
        }
        if journal.version >= 2 {
            chain.finish(hasRecords: !journal.records.isEmpty, headFound: !journal.heads.isEmpty)
            if let first = chain.damage.first { throw VaultDamage(message: first) }
            guard chain.tip == expected else {
                throw VaultDamage(message: "\(file) changed on disk while puffd had it open")
            }
        }
        return try resealKept(
            journal.records, format: journal.version, from: Target(space: space, sealer: sealer),
            to: target ?? Target(space: space, sealer: sealer), start: start, file: file, tagging: tagging,
            counting: counting)
    }

    /// Keeps of `journal` only the records that authenticate in their place in the chain, for
    /// `puffctl repair`: compacted and sealed again from `start` on (after the highest sequence
    /// number seen, so the old head reads as older). Returns what was left out, as `status`
    /// named it.
    static func salvage(
        _ journal: JournalReplay, space: SpaceID, sealer: SecretSealer, file: String
    ) throws(VaultDamage) -> (result: Result, lost: [String]) {
        let checked = authenticated(journal, space: space, sealer: sealer, file: file)
        let result = try resealKept(
            checked.good, format: journal.version, from: Target(space: space, sealer: sealer),
            to: Target(space: space, sealer: sealer), start: checked.highest + 1, file: file)
        return (result, checked.damage)
    }

    /// The records of `journal` that authenticate in their place in the chain, the highest
    /// sequence number seen, and what does not hold, as `status` names it (file, offset, why):
    /// what `puffctl repair` keeps and `puffctl verify` reports.
    static func authenticated(
        _ journal: JournalReplay, space: SpaceID, sealer: SecretSealer, file: String, counting: ByteCounting? = nil
    ) -> (good: [JournalReplay.Record], highest: UInt64, damage: [String]) {
        let heads = journal.heads.compactMap { try? JournalHead(decoding: $0) }.filter {
            $0.authenticates(space: space, sealer: sealer)
        }
        var chain = JournalChain(file: file, head: JournalChain.newest(heads))
        var damaged = journal.damaged[...]
        var good: [JournalReplay.Record] = []
        var highest = heads.map(\.sequence).max() ?? 0
        // Told in steps of at least 64 KiB: a journal of small records has 100,000s of them.
        var uncounted = 0
        defer { if uncounted > 0 { counting?(uncounted) } }
        for stored in journal.records {
            defer {
                uncounted += stored.bytes.count
                if uncounted >= 1 << 16, let counting {
                    counting(uncounted)
                    uncounted = 0
                }
            }
            chain.skipDamage(&damaged, before: stored.offset)
            guard let record = try? VaultRecord(decoding: stored.bytes, format: journal.version),
                (try? record.open(space: space, sealer: sealer)) != nil
            else {
                chain.skip(at: stored.offset, "record does not authenticate")
                continue
            }
            if let link = record.link { highest = max(highest, link.sequence) }
            guard chain.admit(record, offset: stored.offset) else { continue }
            good.append(stored)
        }
        chain.skipDamage(&damaged, before: .max)
        if journal.version >= 2 {
            chain.finish(hasRecords: !journal.records.isEmpty, headFound: !journal.heads.isEmpty)
        }
        return (good, highest, chain.damage)
    }

    /// Opens the records ``JournalCompaction`` keeps of `records` in `source` and seals them again
    /// in `target`, chained from `start`.
    private static func resealKept(
        _ records: [JournalReplay.Record], format: UInt8, from source: Target, to target: Target, start: UInt64,
        file: String, tagging: Tagging = .kept, counting: (@Sendable () -> Void)? = nil
    ) throws(VaultDamage) -> Result {
        let kept = try JournalCompaction.kept(records, format: format, file: file)
        var result = Result(records: [], tip: nil, head: nil, deadRecords: kept.deadRecords)
        result.records.reserveCapacity(kept.records.count)
        var link = VaultRecord.Link.first(start)
        // The new journal's own digest, from its first record; `Modified` is the newest time kept.
        var tip = JournalChain.Tip(sequence: 0, tag: [])
        for bytes in kept.records {
            guard let old = try? VaultRecord(decoding: bytes, format: format),
                let plaintext = try? old.open(space: source.space, sealer: source.sealer)
            else { throw VaultDamage(message: "\(file): a kept record no longer authenticates") }
            var tags = old.tags
            if case .remade(let hasher) = tagging, old.kind == .item {
                guard let fields = try? ItemFields.parse(plaintext, wantsSecret: false).0 else {
                    throw VaultDamage(message: "\(file): a kept item record does not parse")
                }
                tags = hasher.map { AttributeIndex(hasher: $0).tags(of: fields.attributes) } ?? []
            }
            let record = VaultRecord(
                kind: old.kind, number: old.number, tags: tags, plaintext: plaintext, space: target.space,
                sealer: target.sealer, link: link)
            result.records.append(record.encoded())
            link = VaultRecord.Link(sequence: link.sequence + 1, previous: record.mac)
            tip = tip.advanced(by: record, time: VaultRecord.time(of: record.kind, plaintext: plaintext))
            counting?()
        }
        if !result.records.isEmpty {
            result.tip = tip
            result.head = tip.head(space: target.space, sealer: target.sealer).encoded()
        }
        return result
    }
}
