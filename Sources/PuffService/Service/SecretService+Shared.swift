// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// Whether a shared collection's store answered the last time this service tried (a pull or an
/// append), for `status` (docs/design/fleet.md §0: offline).
public struct SharedLink: Sendable, Equatable {
    /// The name the collection is shared under (its path in the shared store).
    public var name: String
    /// The kind of the shared store (``FleetLog/kindName``, `openbao`); `fleet` when the vault has
    /// none configured.
    public var store: String
    /// Whether the last pull or append reached the shared store; nil before the first.
    public var reachable: Bool?
    /// Why the last one did not (the store's address and its answer); `""` when it did.
    public var reason: String
    /// When the last one was made, in seconds since the epoch; 0 before the first.
    public var checkedAt: UInt64
    /// When the shared store last answered (the last pull or append that reached it), in seconds
    /// since the epoch; 0 when it has not since puffd started.
    public var reachedAt: UInt64

    public init(name: String, store: String, reachable: Bool?, reason: String, checkedAt: UInt64, reachedAt: UInt64) {
        self.name = name
        self.store = store
        self.reachable = reachable
        self.reason = reason
        self.checkedAt = checkedAt
        self.reachedAt = reachedAt
    }
}

/// Shared (fleet) collections: pulling what other machines appended, writes refused because
/// another machine appended first, and the state of the link (docs/design/fleet.md).
extension SecretService {
    /// How many times a write to a shared collection is made before another machine's appends
    /// winning each time fail it.
    static let sharedWriteTries = 8

    /// Brings into `collection` what other machines appended to its shared store since the last
    /// pull, as if it had been written here: items created, changed and deleted (with their
    /// events), its record, settings, index and chain; a locked collection's view as its journal
    /// shows it; then, for a collection unlocked here, a newer header its shared store keeps
    /// (another machine's slot change, ``takeSharedHeader(of:)``). Holds the write turn, so memory
    /// and the journal move together.
    ///
    /// - Returns: How many records came in; 0 for a collection that is not shared.
    /// - Throws: ``ServiceError/offline(collection:reason:)`` when the shared store cannot be
    ///   reached (nothing changes), ``ServiceError/noSuchObject``, ``ServiceError/failed(_:)``.
    @discardableResult
    public func pullShared(_ collection: CollectionID) async throws(ServiceError) -> Int {
        await beginWrite()
        defer { endWrite() }
        let vault = try state(of: collection)
        let pulled = try await pullHoldingTurn(vault)
        await takeSharedHeader(of: vault)
        return pulled
    }

    /// Pulls every shared collection (``pullShared(_:)``), as the daemon's poll does; a failure is
    /// logged and kept for `status` (``sharedLink(of:)``), and the others are pulled still.
    ///
    /// - Returns: Whether every shared collection's store answered (the poll backs off when not).
    @discardableResult
    public func pullAllShared() async -> Bool {
        var reached = true
        for id in collectionOrder {
            guard let vault = collectionStates[id], let space = vault.space, store.sharedName(of: space) != nil else {
                continue
            }
            do {
                try await pullShared(id)
            } catch {
                if case .offline = error { reached = false }
            }
        }
        return reached
    }

    /// Whether the vault's store keeps fleet collections in a shared log (a ``FleetRecordStore``
    /// with OpenBao configured): the daemon then polls them (``pullAllShared()``).
    public nonisolated var sharesCollections: Bool { (store as? FleetRecordStore)?.log != nil }

    /// Whether `collection` is shared, and how its store answered last; nil when it is not shared.
    public func sharedLink(of collection: CollectionID) -> SharedLink? {
        guard let vault = collectionStates[collection] else { return nil }
        return sharedLink(of: vault)
    }

    func sharedLink(of vault: CollectionVault) -> SharedLink? {
        guard let space = vault.space, let name = store.sharedName(of: space) else { return nil }
        return sharedLinks[space]
            ?? SharedLink(name: name, store: sharedStoreKind, reachable: nil, reason: "", checkedAt: 0, reachedAt: 0)
    }

    /// ``SharedLink/store``: the kind of the vault's shared store.
    private var sharedStoreKind: String { store.sharedStoreKind ?? FleetRecordStore.kind }

    /// ``pullShared(_:)`` for a caller holding the write turn.
    @discardableResult
    func pullHoldingTurn(_ vault: CollectionVault) async throws(ServiceError) -> Int {
        guard let space = vault.space, store.sharedName(of: space) != nil else { return 0 }
        let pulled: PulledRecords?
        do {
            pulled = try await store.pull(space)
        } catch {
            throw storeFailure(error, in: vault, "the changes of other machines could not be brought in")
        }
        noteReached(space)
        // The collection may have gone while the store was asked; the journal has the records.
        guard collectionStates[vault.id] === vault, vault.space == space else { return 0 }
        guard let pulled else {
            // Nothing new: the generation may still have moved (a refused append of this store's).
            if let current = try? await store.generation(of: space) { journalGenerations[space] = current }
            return 0
        }
        let events = vault.takePulled(pulled.records, at: pulled.locators, file: store.name(of: .journal(space)))
        journalGenerations[space] = pulled.generation
        if !vault.damage.isEmpty {
            logger.error(
                "Records pulled from the shared store did not authenticate: the collection takes no writes",
                metadata: ["collection.id": "\(vault.id)", "damage": "\(vault.damage.joined(separator: "; "))"])
        }
        for event in events { emit(event) }
        logger.debug(
            "Pulled a shared collection",
            metadata: ["collection.id": "\(vault.id)", "records": "\(pulled.records.count)"])
        return pulled.records.count
    }

    /// Runs `write` (which takes the write turn itself) until no other machine's append beats it:
    /// a write refused as stale (``ServiceError/conflict(collection:)``) changed nothing here, so
    /// the collection is pulled and the whole write made again from what it then holds (a new
    /// item number, a new place in the chain), at most ``sharedWriteTries`` times.
    ///
    /// - Throws: what `write` throws; ``ServiceError/failed(_:)`` when every try was beaten.
    func retryingConflicts<T>(
        in collection: CollectionID, _ write: () async throws(ServiceError) -> T
    ) async throws(ServiceError) -> T {
        var tries = 0
        while true {
            do throws(ServiceError) {
                return try await write()
            } catch {
                guard case .conflict(let name) = error else { throw error }
                tries += 1
                guard tries < Self.sharedWriteTries else {
                    logger.error(
                        "A write to a shared collection was beaten by other machines at every try",
                        metadata: ["collection.id": "\(collection)", "tries": "\(tries)"])
                    throw .failed(
                        "collection \(name) was changed by other machines before each of \(tries) tries; nothing was "
                            + "saved: try again")
                }
                try await pullShared(collection)
            }
        }
    }

    /// What a caller is told when the store refused `vault`'s write or pull: for a shared
    /// collection, ``ServiceError/offline(collection:reason:)`` when its shared store was not
    /// reached and ``ServiceError/conflict(collection:)`` when another machine appended first;
    /// else ``unsaved(_:_:)``.
    func storeFailure(_ error: any Error, in vault: CollectionVault, _ fallback: String) -> ServiceError {
        guard let space = vault.space, store.sharedName(of: space) != nil, let error = error as? StoreError else {
            return unsaved(error, fallback)
        }
        switch error {
        case .unavailable(let why):
            noteUnreachable(space, why)
            return .offline(collection: vault.id.rawValue, reason: why)
        case .staleGeneration:
            noteReached(space)
            return .conflict(collection: vault.id.rawValue)
        default:
            return unsaved(error, fallback)
        }
    }

    /// The generation the next append to `vault`'s journal expects: the one last seen, and for a
    /// shared store, where every append is one more entry, one more per append still queued.
    func expectedGeneration(of vault: CollectionVault, _ space: SpaceID) -> UInt64 {
        let seen = journalGenerations[space] ?? 0
        guard store.sharedName(of: space) != nil else { return seen }
        return seen + UInt64(vault.pending.entries.count)
    }

    /// Reads a shared journal's generation from the store once (after a start, or a collection
    /// made here): memory then holds what the local copy holds, which is what the store counts.
    func learnGeneration(of space: SpaceID) async {
        guard journalGenerations[space] == nil, store.sharedName(of: space) != nil else { return }
        if let current = try? await store.generation(of: space), journalGenerations[space] == nil {
            journalGenerations[space] = current
        }
    }

    /// Notes that an append (one entry) to `space` is durable: a shared store's generation counts
    /// its entries (a file store's moves only when an append fails).
    func noteAppendedEntry(to space: SpaceID) {
        guard store.sharedName(of: space) != nil else { return }
        journalGenerations[space] = (journalGenerations[space] ?? 0) + 1
        noteReached(space)
    }

    /// The refusal of what would rewrite a shared collection's chain (docs/design/fleet.md §4), or
    /// nil for a collection this vault alone holds.
    func sharedRefusal(_ vault: CollectionVault, _ what: String) -> ServiceError? {
        guard let space = vault.space, let name = store.sharedName(of: space) else { return nil }
        return .failed(
            "\(what) of collection \(vault.id) is refused: it is a fleet collection (shared as \(name)), whose "
                + "chain of records the other machines hold too")
    }

    /// What a write to a damaged collection is told: a fleet collection is not repaired here
    /// (``sharedRefusal(_:_:)``), since the records at fault are in the shared log too.
    func damagedHint(_ vault: CollectionVault) -> String {
        guard sharedLink(of: vault) != nil else { return Self.repairHint(vault) }
        return
            "collection \(vault.id) is damaged (\(vault.damage.first ?? "")); it is a fleet collection, which is not "
            + "repaired here: what authenticates is readable, and writes wait until its shared log is put right"
    }

    private func noteReached(_ space: SpaceID) {
        guard let name = store.sharedName(of: space) else { return }
        if sharedLinks[space]?.reachable == false {
            logger.notice("A shared collection's store is reachable again", metadata: ["shared.name": "\(name)"])
        }
        let time = now()
        sharedLinks[space] = SharedLink(
            name: name, store: sharedStoreKind, reachable: true, reason: "", checkedAt: time, reachedAt: time)
    }

    private func noteUnreachable(_ space: SpaceID, _ why: String) {
        guard let name = store.sharedName(of: space) else { return }
        if sharedLinks[space]?.reachable != false {
            logger.warning(
                "A shared collection's store cannot be reached: reads go on, writes wait",
                metadata: ["shared.name": "\(name)", "reason": "\(why)"])
        }
        sharedLinks[space] = SharedLink(
            name: name, store: sharedStoreKind, reachable: false, reason: why, checkedAt: now(),
            reachedAt: sharedLinks[space]?.reachedAt ?? 0)
    }
}
