// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
import PuffStore

/// A collection that was deleted and is kept sealed until it is purged.
public struct DeletedCollection: Sendable, Equatable {
    /// Its id when it was deleted; nil for a hidden collection (its name is sealed).
    public var id: String?
    /// Its label, when known (it was open when deleted); else `""`.
    public var label: String
    /// How many items it held (for a collection set aside locked, the item records counted).
    public var itemCount: Int
    /// When it was deleted, in seconds since the epoch.
    public var deletedAt: UInt64
    /// What `puffctl collection restore` takes to bring this one back: `<time>-<space>`.
    public var name: String
}

extension SecretService {
    /// `Collection.Delete` from a Secret Service client (secret-service.md §6.10, Puff departs from
    /// gnome-keyring): an empty collection, or one this connection created since start, is
    /// deleted at once; any other needs the person, so a prompt is returned whose `Prompt()` asks
    /// for a confirmation through the prompter chain and deletes only on a yes. A dismissed
    /// prompt, or nobody to ask, deletes nothing.
    ///
    /// A locked private collection's items are unknown, so it is never taken for empty.
    ///
    /// - Returns: nil when deleted at once, else the prompt.
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/invalidArgument(_:)`` for the
    ///   `session` collection; ``ServiceError/limitExceeded(_:)``; ``ServiceError/failed(_:)``.
    public func deleteCollection(_ id: CollectionID, caller: Caller) async throws(ServiceError) -> PromptID? {
        let vault = try state(of: id)
        guard id != .session, vault.space != nil else {
            throw .invalidArgument("the session collection cannot be deleted")
        }
        let knownEmpty = vault.count == 0 && (vault.isOpen || !vault.isPrivate)
        guard knownEmpty || vault.creator == caller.client else {
            return try addPrompt(.delete(id), owner: caller.client)
        }
        _ = try await setAside(id, caller: caller)
        return nil
    }

    /// Deletes a collection for `puffctl collection delete`. One that may hold items needs the
    /// person, whoever calls: its passcode (a locked one's opens it first, so its items are
    /// counted and the deletion is written to its audit log), or, for an unlocked one, a yes
    /// through the prompter chain; with nobody to ask it is refused. What it held is kept sealed
    /// (``deletedCollections()``) for ``keepDeletedDays``.
    ///
    /// - Throws: ``ServiceError/isLocked`` for a locked collection without `passcode` (an
    ///   ephemeral vault's need none); ``ServiceError/failed(_:)`` when nobody confirmed;
    ///   ``ServiceError/wrongPasscode``; ``ServiceError/noSuchObject``;
    ///   ``ServiceError/invalidArgument(_:)`` for `session`; ``ServiceError/failed(_:)``.
    public func deleteCollection(
        _ id: CollectionID, passcode: SecureBytes?, caller: Caller
    ) async throws(ServiceError) -> DeletedCollection {
        let vault = try state(of: id)
        guard id != .session, vault.space != nil else {
            throw .invalidArgument("the session collection cannot be deleted")
        }
        let mayHoldItems = vault.count > 0 || (!vault.isOpen && vault.isPrivate)
        // An ephemeral vault's collections have no passcode to ask for.
        if vault.isLocked, vault.escrow == nil {
            guard let passcode else { throw .isLocked }
            try await open(vault, master: try await masterKey(of: id, with: .typed(passcode)))
        } else if let passcode, vault.escrow == nil {
            _ = try await masterKey(of: id, with: .typed(passcode))
        } else if mayHoldItems {
            try await confirmDeletion(of: vault, caller: caller)
        }
        return try await setAside(id, caller: caller)
    }

    /// Asks the person, through the prompter chain, whether `vault` may be deleted, within the
    /// prompt timeout.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` saying what to do, unless the answer is yes.
    private func confirmDeletion(of vault: CollectionVault, caller: Caller) async throws(ServiceError) {
        let request = PromptRequest(
            purpose: .deleteCollection(collection: vault.id, label: vault.fields.label, items: vault.count),
            caller: caller.client, windowID: "", application: caller.application)
        let (prompter, clock, timeout) = (self.prompter, self.clock, promptTimeout)
        let reply = await withTaskGroup(of: PromptReply?.self) { group in
            group.addTask { (try? await prompter.prompt(request)) ?? .dismissed }
            group.addTask {
                try? await Self.sleep(on: clock, for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .dismissed
        }
        guard case .confirmed = reply else {
            logger.notice(
                "Deleting a collection was not confirmed; nothing was deleted",
                metadata: ["collection.id": "\(vault.id)", "client.name": "\(caller.client)"])
            throw .failed(
                "nobody confirmed deleting \(vault.id): give its passcode (--stdin or --passcode-fd), or answer "
                    + "through puffctl agent or pinentry")
        }
    }

    /// Asks the person to confirm deleting a collection, and deletes it on a yes: the body of a
    /// started `Collection.Delete` prompt.
    func runDelete(_ id: CollectionID, _ asker: PromptAsker) async -> PromptOutcome {
        guard let vault = collectionStates[id] else { return .failed(.noSuchObject) }
        let purpose = PromptRequest.Purpose.deleteCollection(
            collection: id, label: vault.isLocked ? "" : vault.fields.label, items: vault.count)
        let reply: PromptReply
        do {
            reply = try await asker.prompter.prompt(asker.request(purpose, policy: nil))
        } catch {
            return .prompterFailed
        }
        guard !Task.isCancelled, case .confirmed = reply else {
            logger.notice(
                "Deleting a collection was not confirmed; nothing was deleted",
                metadata: ["collection.id": "\(id)", "client.name": "\(asker.caller)"])
            return .dismissedByPrompter
        }
        do {
            _ = try await setAside(id, caller: Caller(asker.caller, executable: asker.application))
        } catch {
            return .failed(error)
        }
        return .approved(.none)
    }

    /// Removes a collection from the vault and moves its files aside, sealed as they are: the
    /// catalog forgets it, aliases that named it are released (`default` then names another
    /// collection), and `collectionDeleted` is emitted (no per-item `ItemDeleted`, §6.10).
    private func setAside(_ id: CollectionID, caller: Caller) async throws(ServiceError) -> DeletedCollection {
        await beginWrite()
        defer { endWrite() }
        // The collection may have gone while the person was asked or its passcode derived.
        let vault = try state(of: id)
        guard let space = vault.space else { throw .invalidArgument("the session collection cannot be deleted") }
        let time = now()
        let deleted = DeletedCollection(
            id: vault.isHidden ? nil : id.rawValue, label: vault.isLocked ? "" : vault.fields.label,
            itemCount: vault.count, deletedAt: time, name: "\(time)-\(space.hex)")
        if let auditLog, let sealer = vault.auditSealer {
            let fields = AuditFields(
                .deleteCollection, result: .allowed, time: time, item: 0, label: vault.fields.label, caller: caller)
            auditLog.append(fields, to: space, sealer: sealer)
        }
        auditLog?.close(space)
        do {
            try await store.setAside(space, at: time)
        } catch {
            logger.error(
                "Setting a collection's files aside failed", metadata: ["collection.id": "\(id)", "error": "\(error)"])
            throw unsaved(error, "the change could not be saved")
        }
        flushFastReads()
        finishLocking(vault, vault.lock(forGood: true))
        collectionStates[id] = nil
        collectionOrder.removeAll { $0 == id }
        // Its own log goes aside with it, and a locked one's cannot take an entry at all: the
        // logs of the collections still open name it (issue 24 item 18).
        auditEverywhere(
            .deleteCollection, label: vault.isHidden ? "a hidden collection" : "collection \(id)", caller: caller,
            result: .allowed)
        releaseAliases(of: id)
        if var catalog, !vault.isHidden {
            catalog.collections.removeAll { $0.space == space }
            catalog.aliases = catalog.aliases.filter { $0.value != id.rawValue }
            await saveCatalogOrKeep(catalog)
        }
        emit(.collectionDeleted(id))
        await ensureDefault()
        logger.notice(
            "Collection deleted; its files are kept aside, sealed",
            metadata: [
                "collection.id": "\(vault.isHidden ? "(hidden)" : id.rawValue)", "items": "\(deleted.itemCount)",
                "kept.days": "\(keepDeletedDays)", "client.name": "\(caller.client)",
                "client.executable": "\(caller.executable ?? "-")", "restore": "puffctl collection restore",
            ])
        return deleted
    }

    /// Writes `new` as the catalog; when that fails it is still the catalog in memory, so the
    /// next write of the catalog saves it (a deletion already moved the files).
    private func saveCatalogOrKeep(_ new: Catalog) async {
        do {
            try await saveCatalog(new)
        } catch {
            catalog = new
        }
    }

    /// Points `default` at a collection when it names none (its collection was deleted, or never
    /// set): `login` when it exists, else the first visible collection. Callers hold the write turn.
    func ensureDefault() async {
        guard readAlias("default") == nil, var new = catalog else { return }
        let visible = collectionOrder.filter { $0 != .session && collectionStates[$0]?.isHidden == false }
        guard let pick = visible.contains(.login) ? CollectionID.login : visible.first else { return }
        new.aliases["default"] = pick.rawValue
        await saveCatalogOrKeep(new)
        aliases["default"] = pick
        logger.info("The default collection is now another one", metadata: ["collection.id": "\(pick)"])
    }

    /// The collections deleted and still kept, oldest first. Their ids come from their headers
    /// (a hidden one's is sealed) and their item counts from their journals' records.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the kept files cannot be read.
    public func deletedCollections() async throws(ServiceError) -> [DeletedCollection] {
        let kept: [SetAsideSpace]
        do {
            kept = try await store.setAsideSpaces()
        } catch {
            logger.error("Listing deleted collections failed", metadata: ["error": "\(error)"])
            throw .failed("the deleted collections cannot be read: \(error)")
        }
        return kept.compactMap { entry in
            guard let header = try? VaultHeader(decoding: entry.header) else { return nil }
            let items = VaultOpening.scan(entry.journal, header: header, file: "").items.count
            return DeletedCollection(
                id: header.collectionID, label: "", itemCount: items, deletedAt: entry.name.time,
                name: "\(entry.name.time)-\(entry.name.space.hex)")
        }
    }

    /// Brings a deleted collection back, locked, as it was when deleted. `name` is a
    /// ``DeletedCollection/name``, or a collection id for the one of that id deleted last.
    ///
    /// - Returns: The collection's id (nil for a hidden one, which stays hidden until its
    ///   passcode opens it).
    /// - Throws: ``ServiceError/noSuchObject`` when nothing kept matches;
    ///   ``ServiceError/failed(_:)`` when a collection of that id exists again (delete or keep it
    ///   first) or the files cannot be moved back; ``ServiceError/limitExceeded(_:)``;
    ///   ``ServiceError/notInitialized``.
    public func restoreCollection(_ name: String) async throws(ServiceError) -> CollectionID? {
        let candidates = try await deletedCollections()
        guard let chosen = candidates.last(where: { $0.name == name || $0.id == name }) else { throw .noSuchObject }
        await beginWrite()
        defer { endWrite() }
        guard var newCatalog = catalog else { throw .notInitialized }
        if let id = chosen.id, collectionStates[CollectionID(id)] != nil {
            throw .failed("a collection named \(id) exists: delete it first, then restore this one")
        }
        try checkRoomForCollection(hidden: chosen.id == nil)
        let parts = chosen.name.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let time = UInt64(parts[0]), let space = SpaceID(hex: String(parts[1])) else {
            throw .noSuchObject
        }
        do {
            try await store.bringBack(space, setAsideAt: time)
        } catch {
            logger.error("Restoring a collection failed", metadata: ["error": "\(error)"])
            throw .failed("the collection could not be restored: \(error)")
        }
        var loaded = VaultLoader.Loaded()
        await VaultLoader.loadSpace(
            space, name: chosen.id ?? space.hex, store: store, into: &loaded, logger: logger, tpm: tpm)
        for (space, header) in loaded.hidden { hiddenHeaders[space] = header }
        damaged += loaded.damaged
        guard let id = loaded.order.first, let vault = loaded.collections[id] else {
            logger.notice("A deleted hidden collection was restored; its passcode opens it")
            return nil
        }
        newCatalog.collections.append(Catalog.Entry(space: space, id: id.rawValue))
        // `login` gets its alias back, unless another collection took it meanwhile.
        if id == .login, readAlias("login") == nil {
            newCatalog.aliases["login"] = id.rawValue
            aliases["login"] = id
        }
        await saveCatalogOrKeep(newCatalog)
        collectionStates[id] = vault
        collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
        emit(.collectionCreated(id))
        await ensureDefault()
        logger.notice("Collection restored", metadata: ["collection.id": "\(id)", "items": "\(vault.count)"])
        return id
    }

    /// Removes for good the collections deleted more than ``keepDeletedDays`` ago; puffd calls
    /// it as it starts. A failure is logged: what could not be removed stays.
    public func purgeDeleted() async {
        let age = UInt64(keepDeletedDays) * 86_400
        let cutoff = now() > age ? now() - age : 0
        do {
            let purged = try await store.purgeSetAside(before: cutoff)
            if !purged.isEmpty {
                logger.notice(
                    "Deleted collections older than the keep period removed for good",
                    metadata: ["count": "\(purged.count)", "kept.days": "\(keepDeletedDays)"])
            }
        } catch {
            logger.error("Removing old deleted collections failed", metadata: ["error": "\(error)"])
        }
    }
}
