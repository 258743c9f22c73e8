// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// The work of a re-key done off the actor (docs/vault-format.md, "Re-keying"): every kept
/// record opened under the old master key and space and sealed again under the new ones by
/// ``JournalResealing``, the collection's memory form built from the new journal, and its audit
/// log sealed again entry by entry.
enum CollectionRekeying {
    /// What the re-key seals from and into.
    struct Keys: Sendable {
        var oldSpace: SpaceID
        var oldMaster: MasterKey
        /// The new header, naming the new space.
        var header: VaultHeader
        var newMaster: MasterKey
    }

    /// The new journal and the collection's memory form read back from it.
    struct Output: Sendable {
        var resealed: JournalResealing.Result
        /// For an unlocked collection: what unlocking the new journal gives.
        var opened: OpenedCollection?
        /// For a locked one: what start-up would scan of it.
        var scanned: ScannedCollection?
    }

    /// Seals `journal`'s kept records again under `keys`, after checking that every record
    /// authenticates in its place and the chain ends at `expected`; then reads the new journal
    /// back: opened when `unlocked`, scanned otherwise.
    ///
    /// - Throws: ``VaultDamage`` naming what does not hold; nothing is written then.
    static func rekey(
        _ journal: JournalReplay, keys: Keys, expected: JournalChain.Tip?, id: CollectionID, unlocked: Bool,
        file: String, counting: (@Sendable () -> Void)? = nil
    ) throws(VaultDamage) -> Output {
        guard let oldSealer = try? SecretSealer(key: keys.oldMaster.subkey(.records)),
            let newSealer = try? SecretSealer(key: keys.newMaster.subkey(.records))
        else { throw VaultDamage(message: "\(file): the collection's keys could not be made") }
        let resealed = try JournalResealing.reseal(
            journal, space: keys.oldSpace, sealer: oldSealer, expected: expected, start: 1, file: file,
            into: JournalResealing.Target(space: keys.header.space, sealer: newSealer), counting: counting)
        var offset = UInt64(JournalFraming.preamble.count)
        var records: [JournalReplay.Record] = []
        records.reserveCapacity(resealed.records.count)
        for bytes in resealed.records {
            records.append(JournalReplay.Record(offset: offset, bytes: bytes))
            offset += UInt64(bytes.count + JournalFraming.frameOverhead)
        }
        let replay = JournalReplay(
            records: records, cut: nil, size: offset, heads: resealed.head.map { [$0] } ?? [])
        var output = Output(resealed: resealed)
        if unlocked {
            output.opened = try VaultOpening.open(
                replay, header: keys.header, master: keys.newMaster, id: id, file: file)
        } else if keys.header.flags.contains(.private) {
            // As at start-up: nothing of a locked private collection is read without its key.
            var scanned = ScannedCollection(index: AttributeIndex(), hasher: KeyedHash())
            scanned.tip = resealed.tip
            scanned.deadRecords = resealed.deadRecords
            output.scanned = scanned
        } else {
            output.scanned = VaultOpening.scan(
                replay, header: keys.header, file: file,
                indexKey: try? keys.header.unwrapIndexKey(master: keys.newMaster))
        }
        return output
    }

    /// The audit log of `old` sealed again as the log of `new`, entry by entry, each keeping its
    /// number; an entry that does not open under the old key is kept as it was, so the new log
    /// still reports it as not opening.
    static func resealAudit(_ entries: [[UInt8]], keys: Keys) -> [[UInt8]] {
        guard let oldSealer = try? SecretSealer(key: keys.oldMaster.subkey(.audit)),
            let newSealer = try? SecretSealer(key: keys.newMaster.subkey(.audit))
        else { return entries }
        return entries.map { bytes in
            guard let record = try? AuditRecord(decoding: bytes),
                let fields = record.open(space: keys.oldSpace, sealer: oldSealer)
            else { return bytes }
            return AuditRecord(sequence: record.sequence, fields: fields, space: keys.header.space, sealer: newSealer)
                .encoded()
        }
    }
}
