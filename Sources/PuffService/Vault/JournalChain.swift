// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Follows a collection's chain of records (docs/vault-format.md, Chain): says which records count
/// and collects what is wrong, as `status` shows it.
///
/// A record counts when it comes after the newest record that counted: one numbered at or before
/// it (replayed, or reordered) is left out, since applying it would roll an item back. A gap in
/// the numbers (a record dropped), a record that does not name its predecessor's MAC, or a first
/// record that names one (records dropped from the start) is damage, but the record still counts:
/// it authenticated, and what it says is newer than anything before it. The head names the
/// newest record acknowledged; a journal that ends before it lost acknowledged records.
struct JournalChain {
    /// The newest record that counted: its sequence number and MAC, with the digest of the
    /// journal's records up to it and the collection's `Modified` (what a version 2 head seals).
    /// Two tips are equal when they name the same record.
    struct Tip: Equatable, Sendable {
        var sequence: UInt64
        var tag: [UInt8]
        var digest = ChainDigest.empty
        var modified: UInt64 = 0

        /// The tip after appending `record` to this one's journal, which sets `time` (nil: none).
        func advanced(by record: VaultRecord, time: UInt64?) -> Tip {
            Tip(
                sequence: record.link?.sequence ?? sequence, tag: record.mac, digest: digest.advanced(by: record),
                modified: max(modified, time ?? 0))
        }

        /// The tip of a new journal whose first record is `record`, after a journal whose tip
        /// was `old` (a compaction keeps `Modified`).
        static func first(_ record: VaultRecord, time: UInt64?, after old: Tip? = nil) -> Tip {
            Tip(sequence: 0, tag: [], modified: old?.modified ?? 0).advanced(by: record, time: time)
        }

        /// The sealed head naming this tip.
        func head(space: SpaceID, sealer: SecretSealer) -> JournalHead {
            JournalHead(sequence: sequence, tag: tag, digest: digest, modified: modified, space: space, sealer: sealer)
        }

        static func == (a: Tip, b: Tip) -> Bool { a.sequence == b.sequence && a.tag == b.tag }
    }

    let file: String
    /// The newest head found (nil: no head file, or none that authenticates).
    let head: Tip?
    private(set) var tip: Tip?
    /// The digest of the records that counted, in order (``ChainDigest``).
    private(set) var digest = ChainDigest.empty
    private(set) var damage: [String] = []
    /// Records left out since the tip for failing to read or authenticate: a gap of that size
    /// is already reported.
    private var skipped = 0
    private var headSeen = false
    /// The sequence number of the first record that counted.
    private var firstSequence: UInt64?

    /// A chain checked against `head`, the newest head slot.
    init(file: String, head: Tip?) {
        self.file = file
        self.head = head
    }

    /// Notes `why` about the record at `offset` and that it was left out.
    /// Goes on from a snapshot of an earlier scan that found no damage: `tip` is the last record
    /// it covered, `first` the chain's first record.
    mutating func resume(at tip: Tip, first: UInt64) {
        self.tip = tip
        // The snapshot's digest (empty when it had none: an unlock in place then finds no match).
        digest = tip.digest
        firstSequence = first
        if let head, head.sequence == tip.sequence {
            headSeen = true
            if head.tag != tip.tag {
                damage.append("\(file): record \(tip.sequence) is not the one the head names")
            }
        }
    }

    mutating func skip(at offset: UInt64, _ why: String) {
        damage.append(StoreDamage(name: file, offset: offset, reason: why).description)
        skipped += 1
    }

    /// Skips the stretches of `damaged` (frames that did not read) that start before `offset`.
    mutating func skipDamage(_ damaged: inout ArraySlice<JournalReplay.Damage>, before offset: UInt64) {
        while let first = damaged.first, first.offset < offset {
            skip(at: first.offset, first.reason)
            damaged.removeFirst()
        }
    }

    /// Notes `why` about the record at `offset`, which counted in the chain but says nothing usable.
    mutating func note(at offset: UInt64, _ why: String) {
        damage.append(StoreDamage(name: file, offset: offset, reason: why).description)
    }

    /// Whether `record`, chained, counts (see the type's rules); a record that counts advances
    /// ``digest``. A format 1 record (no link) counts.
    mutating func admit(_ record: VaultRecord, offset: UInt64) -> Bool {
        if let link = record.link, !admit(link, mac: record.mac, offset: offset) { return false }
        digest = digest.advanced(by: record)
        if tip != nil { tip!.digest = digest }
        return true
    }

    /// Whether a record that authenticated, at `link`, counts (see the type's rules).
    mutating func admit(_ link: VaultRecord.Link, mac: [UInt8], offset: UInt64) -> Bool {
        let file = self.file
        let damaged = { (why: String) in "\(file) is damaged at offset \(offset): \(why)" }
        if let tip {
            guard link.sequence > tip.sequence else {
                damage.append(
                    damaged(
                        "record \(link.sequence) is out of place after record \(tip.sequence) (replayed or reordered)"))
                return false
            }
            let missing = link.sequence - tip.sequence - 1
            if missing > UInt64(skipped) {
                damage.append(
                    damaged("\(missing - UInt64(skipped)) record(s) before record \(link.sequence) are missing"))
            } else if missing == 0, link.previous != tip.tag {
                damage.append(damaged("record \(link.sequence) does not follow record \(tip.sequence)"))
            }
        } else if link.previous != VaultRecord.Link.first(0).previous, skipped == 0 {
            damage.append(damaged("the records before record \(link.sequence) are missing"))
        }
        if let head, head.sequence == link.sequence {
            headSeen = true
            if head.tag != mac { damage.append(damaged("record \(link.sequence) is not the one the head names")) }
        }
        tip = Tip(sequence: link.sequence, tag: mac, digest: digest, modified: tip?.modified ?? 0)
        if firstSequence == nil { firstSequence = link.sequence }
        skipped = 0
        return true
    }

    /// Checks the end of the journal against the head; `hasRecords` says whether any record was
    /// read at all (one that failed counts).
    mutating func finish(hasRecords: Bool, headFound: Bool) {
        guard let head else {
            if hasRecords {
                damage.append(
                    "\(file): the head is \(headFound ? "damaged" : "missing"), so records cut off the end cannot be detected"
                )
            }
            return
        }
        let last = tip?.sequence ?? 0
        if head.sequence > last {
            damage.append(
                "\(file) lost acknowledged records: the head names record \(head.sequence), the journal ends at record \(last)"
            )
        } else if !headSeen, let first = firstSequence, head.sequence >= first {
            damage.append("\(file): record \(head.sequence), which the head names, is missing")
        }
    }

    /// The newest of `heads` (their clear fields, or those that authenticated).
    static func newest(_ heads: [JournalHead]) -> Tip? {
        newestHead(heads).map { Tip(sequence: $0.sequence, tag: $0.tag) }
    }

    /// The head of `heads` with the highest sequence number.
    static func newestHead(_ heads: [JournalHead]) -> JournalHead? {
        heads.max { $0.sequence < $1.sequence }
    }
}
