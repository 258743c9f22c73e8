// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// The check of journals a start read from their index snapshots (design core-reshaped §4.3).
///
/// A start from a snapshot reads only the journal's records after it, so the first calls are
/// answered without reading and checksumming the whole journal. The frames the snapshot stands
/// for are checked right after, on a Dispatch thread, while the service answers: until the check
/// ends no write lands (it holds the write turn), no collection unlocks (``open(_:master:)``
/// awaits it) and `status` waits (``vaultStatus``). A bad frame makes the start's path of old
/// run for that collection: its journal is scanned whole, the damage logged and listed, and its
/// locked view is what that scan finds, as if the start had found no snapshot.
extension SecretService {
    /// Starts the check of `unchecked` (from ``VaultLoader/Loaded/unchecked``), taking the write
    /// turn first so that no write can come before it.
    func startJournalCheck(_ unchecked: [(id: CollectionID, space: SpaceID, end: UInt64)]) async {
        guard !unchecked.isEmpty else { return }
        await beginWrite()
        journalCheck = Task { await self.checkJournals(unchecked) }
    }

    /// Returns once the journals a start read from their index snapshots are checked (at once
    /// when none was). Tests use it as the hold point after which damage is reported.
    public func journalsChecked() async {
        await journalCheck?.value
    }

    /// Whether a start from index snapshots left journals to check (tests: a hold point is coming).
    package var checksJournals: Bool { journalCheck != nil }

    /// Checks each journal's frames up to where its snapshot's part ends; reads a journal whose
    /// frames are not all good whole, as a start without a snapshot would. Ends the write turn.
    func checkJournals(_ unchecked: [(id: CollectionID, space: SpaceID, end: UInt64)]) async {
        defer { endWrite() }
        for (id, space, end) in unchecked {
            let good = await store.journalFramesAreGood(space, before: end)
            if !good { await reloadWhole(id, space: space) }
        }
    }

    /// Replaces the locked view of `id` with the one a scan of its whole journal finds, and says
    /// which items came and went.
    private func reloadWhole(_ id: CollectionID, space: SpaceID) async {
        guard let old = collectionStates[id], old.space == space, old.isLocked else { return }
        var loaded = VaultLoader.Loaded()
        await VaultLoader.loadSpace(
            space, name: id.rawValue, store: store, into: &loaded, logger: logger, tpm: tpm, snapshot: false)
        guard collectionStates[id] === old, old.isLocked else { return }
        let before = Set(old.order)
        if let vault = loaded.collections[id] {
            collectionStates[id] = vault
            let after = Set(vault.order)
            for number in old.order where !after.contains(number) {
                emit(.itemDeleted(ItemID(collection: id, number: number)))
            }
            for number in vault.order where !before.contains(number) {
                emit(.itemCreated(ItemID(collection: id, number: number)))
            }
        } else {
            // The whole read failed to open it at all: listed as damaged, as at a start.
            collectionStates[id] = nil
            collectionOrder.removeAll { $0 == id }
            damaged += loaded.damaged
            for number in old.order { emit(.itemDeleted(ItemID(collection: id, number: number))) }
            emit(.collectionDeleted(id))
        }
    }
}
