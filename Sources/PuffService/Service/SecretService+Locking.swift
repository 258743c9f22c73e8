// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension SecretService {
    /// Unlocks what can be unlocked at once and hands out a prompt for the rest (secret-service.md §6.5).
    ///
    /// Items act on their collection. References whose target no longer exists are dropped
    /// silently. Locked collections go into one prompt, which completes with ``PromptResult/objects(_:)``
    /// of the references it unlocked; the bus layer echoes each caller's spelling of them (go-keyring
    /// needs the exact string back).
    ///
    /// - Returns: The references already unlocked, in the order given, and a prompt when
    ///   something is still locked.
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when a prompt is needed but the client or the
    ///   service already has too many waiting.
    public func unlock(
        _ objects: [ObjectReference], client: ClientID
    ) throws(ServiceError) -> (unlocked: [ObjectReference], prompt: PromptID?) {
        var unlocked: [ObjectReference] = []
        var pending: [PendingPrompt.Target] = []
        for object in objects {
            guard let collection = collection(for: object), let state = collectionStates[collection] else { continue }
            if state.isLocked {
                pending.append(.init(collection: collection, reference: object))
            } else {
                unlocked.append(object)
            }
        }
        guard !pending.isEmpty else { return (unlocked, nil) }
        return (unlocked, try addPrompt(.unlock(pending), owner: client))
    }

    /// Locks the collections of the given references without prompting (secret-service.md §6.6).
    ///
    /// Returns every reference whose target exists, including already-locked ones. The `session`
    /// collection is listed but stays unlocked, as in gnome-keyring. Like gnome-keyring, the
    /// `locked` events are emitted even when nothing changed.
    ///
    /// - Returns: The references locked, in the order given; the prompt is always nil.
    public func lock(_ objects: [ObjectReference], client: ClientID) async -> (
        locked: [ObjectReference], prompt: PromptID?
    ) {
        // Take the write turn so a change already waiting on its commit lands before the lock,
        // never inside a collection that was locked while it waited.
        await beginWrite()
        defer { endWrite() }
        var locked: [ObjectReference] = []
        var targets: [CollectionID] = []
        for object in objects {
            guard let collection = collection(for: object) else { continue }
            locked.append(object)
            if !targets.contains(collection) { targets.append(collection) }
        }
        for collection in targets {
            lockNow(collection)
        }
        return (locked, nil)
    }

    /// Locks collections (all when `ids` is empty) without a prompt; hidden ones disappear again.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown id (nothing is locked then).
    public func lock(_ ids: [CollectionID]) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        for id in ids where collectionStates[id] == nil { throw .noSuchObject }
        for id in ids.isEmpty ? collectionOrder : ids { lockNow(id) }
        if ids.isEmpty { stopHiddenUnlocks() }
    }

    /// Locks one collection now: wipes its keys (``setLocked(_:_:)`` announces it).
    func lockNow(_ id: CollectionID) {
        guard id != .session, let vault = collectionStates[id] else { return }
        guard vault.isHidden else {
            setLocked(true, id)
            return
        }
        flushFastReads()
        // Hidden, it disappears instead of announcing; its key was never kept.
        _ = vault.lock()
        collectionStates[id] = nil
        collectionOrder.removeAll { $0 == id }
        releaseAliases(of: id)
        if let space = vault.space, let header = vault.header { hiddenHeaders[space] = header }
        emit(.collectionDeleted(id))
    }

    /// How many unlocks are reading `id`'s collection now (tests: none is left over once each ended).
    package func unlocksUnderWay(of id: CollectionID) -> Int {
        collectionStates[id]?.unlocksUnderWay ?? 0
    }

    /// Resolves an `Unlock`/`Lock` target to an existing collection (items act on their collection).
    func collection(for target: ObjectReference) -> CollectionID? {
        switch target {
        case .collection(let id): collectionStates[id] == nil ? nil : id
        case .item(let id): collectionStates[id.collection]?.items[id.number] == nil ? nil : id.collection
        }
    }

    /// Locks a collection (wiping its keys) and announces it.
    func setLocked(_ isLocked: Bool, _ collection: CollectionID) {
        guard collection != .session, let state = collectionStates[collection] else { return }
        if isLocked {
            // Reads answered on the bus thread are logged while the audit key is still here.
            flushFastReads()
            finishLocking(state, state.lock())
        } else {
            announceLock(isLocked, collection)
        }
    }

    /// Performs what locking `vault` asks of the service (``CollectionVault/lock(forGood:)``):
    /// the key keeper forgets its key, and clients hear that it locked.
    func finishLocking(_ vault: CollectionVault, _ actions: [CollectionAction]) {
        for action in actions {
            switch action {
            case .forgetKey: forgetKey(of: vault)
            case .announce(let locked): announceLock(locked, vault.id)
            default: break  // the vault's own, performed already
            }
        }
    }

    /// Emits one `lockChanged` for the collection (§7), whatever its size. When an unlock read the
    /// items' labels and attributes (docs/collections.md), its view says so and carries the
    /// collection's label and time: clients that read the properties while it was locked
    /// (secret-tool 0.20.5's `search --unlock`, through libsecret's cached proxies) then show what
    /// a fresh read would.
    func announceLock(_ isLocked: Bool, _ collection: CollectionID, viewChanged: Bool = false) {
        guard let state = collectionStates[collection] else { return }
        let view = LockView(
            collection: viewChanged ? [.label(state.fields.label), .modified(state.fields.modified)] : [],
            itemsReadable: viewChanged, items: state.table, opener: viewChanged ? state.viewOpener : nil)
        emit(.lockChanged(collection, locked: isLocked, view: view))
    }
}
