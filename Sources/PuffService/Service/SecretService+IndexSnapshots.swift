// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// Index snapshots (``IndexSnapshot``, design core-reshaped §4.2): written at a clean stop and
/// after a compaction, read at start by ``VaultLoader``.
extension SecretService {
    /// Writes a snapshot for every collection whose journal is scanned at start and has none that
    /// covers it all yet, after making the heads durable (their flush otherwise waits for appends
    /// to pause). puffd calls it after the audit flush of a clean stop.
    public func saveIndexSnapshots() async {
        await store.flushHeads()
        for id in collectionOrder {
            guard let vault = collectionStates[id] else { continue }
            await saveIndexSnapshot(of: vault)
        }
    }

    /// Scans `vault`'s journal as start-up would and keeps what it found, unless a snapshot
    /// already covers the whole journal (sealed, or none can be sealed now), or the journal is
    /// damaged (start-up then scans it whole and reports the damage, as without a snapshot).
    ///
    /// The snapshot is sealed under the record key (``IndexSnapshot/Seal``) when the collection
    /// is unlocked and the scan ends at the very chain digest puffd checked against the sealed
    /// head (or wrote itself): then its locators and index are the records' as puffd knows them,
    /// and the next start's first unlock opens no item record (design core-reshaped §4.4).
    func saveIndexSnapshot(of vault: CollectionVault) async {
        // A store without a folder (memory) keeps no snapshot: scanning for one would be wasted.
        guard store.location != nil, let space = vault.space, let header = vault.header, !vault.isPrivate,
            !vault.isHidden
        else { return }
        let sealer = vault.isLocked || !vault.chainChecked || !vault.damage.isEmpty ? nil : vault.sealer
        if let bytes = await store.indexSnapshot(of: space), let old = IndexSnapshot(decoding: bytes),
            old.seal != nil || sealer == nil, let tail = try? await store.replay(space, from: old.lastRecordOffset),
            tail.records.count == 1, tail.size == old.journalLength
        {
            return
        }
        guard let replay = try? await store.replay(space), replay.cut == nil, replay.damaged.isEmpty,
            let last = replay.records.last,
            let lastRecord = try? VaultRecord(decoding: last.bytes, format: replay.version)
        else { return }
        let file = store.name(of: .journal(space))
        let checkedTip = vault.tip
        let bytes = await BlockingWork.run { () -> [UInt8]? in
            let scanned = VaultOpening.scan(replay, header: header, file: file)
            guard scanned.damage.isEmpty else { return nil }
            var snapshot = IndexSnapshot(
                journalLength: replay.size, version: replay.version, lastRecordOffset: last.offset,
                lastTag: lastRecord.mac, tipSequence: scanned.tip?.sequence ?? 0,
                firstSequence: scanned.firstSequence ?? 0, nextNumber: scanned.nextNumber,
                deadRecords: UInt64(scanned.deadRecords), hasCollectionRecord: scanned.collectionRecord != nil,
                items: scanned.items.numbers, settings: Self.settingsOrder(scanned).map(\.number),
                keys: scanned.index.flat)
            snapshot.located = Self.located(scanned, snapshot)
            // Sealed only when what was scanned is the chain puffd checked: same tip, same digest.
            guard let sealer, let tip = scanned.tip, let checkedTip, tip.sequence == checkedTip.sequence,
                tip.digest.matches(checkedTip.digest)
            else { return snapshot.encoded() }
            return snapshot.encoded(sealedFor: space, with: sealer)
        }
        guard let bytes else { return }
        do {
            try await store.replaceIndexSnapshot(bytes, of: space)
        } catch {
            logger.notice(
                "An index snapshot could not be written: the next start reads the journal",
                metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
        }
    }

    /// What `scanned` says of where its records are, in `snapshot`'s order of items and settings.
    private static func located(_ scanned: ScannedCollection, _ snapshot: IndexSnapshot) -> IndexSnapshot.Located {
        var located = IndexSnapshot.Located(
            chainDigest: scanned.tip?.digest.bytes ?? [], collectionRecord: scanned.collectionRecord ?? [])
        for number in snapshot.items {
            guard case .at(let locator) = scanned.items[number]?.record else { return IndexSnapshot.Located() }
            located.locators.append(locator)
        }
        located.settingsRecords = settingsOrder(scanned).map(\.bytes)
        return located
    }

    /// Every settings record of `scanned`, by item number, in a snapshot's order (an item with
    /// records of both kinds is listed twice). Kind 4 comes before kind 5: a puffd from before
    /// kind 5 keeps the last record listed for a number, so it holds the kind 5 record it cannot
    /// open, reads the journal and reports the collection damaged, rather than open it in place
    /// with its app rules silently left out (docs/vault-format.md, "Versioning").
    private static func settingsOrder(_ scanned: ScannedCollection) -> [(number: UInt64, bytes: [UInt8])] {
        scanned.settingsRecords.sorted { $0.key < $1.key }.flatMap { number, kept in
            kept.records.sorted { ($0.first ?? 0) < ($1.first ?? 0) }.map { (number, $0) }
        }
    }
}
