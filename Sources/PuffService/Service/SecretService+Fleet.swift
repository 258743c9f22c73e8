// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// Making fleet collections (docs/design/fleet.md): sharing one of this vault's collections
/// through the store's shared store, and attaching one another machine shared.
extension SecretService {
    /// Shares `collection` as `name` through the vault's shared store (OpenBao): its header and
    /// journal are published, and its writes go there first from then on. Its writes wait
    /// meanwhile, and the ones queued before are written first.
    ///
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/failed(_:)`` when the vault has no
    ///   shared store, the name is not valid or is taken (attach that one instead), the
    ///   collection cannot be shared (hidden, damaged, in memory only) or the shared store cannot
    ///   be reached; nothing is shared then.
    public func shareCollection(_ collection: CollectionID, as name: String) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        let vault = try state(of: collection)
        guard let space = vault.space, !vault.isHidden else {
            throw .failed("collection \(collection) cannot be shared: only a visible collection kept in files can")
        }
        guard vault.damage.isEmpty else { throw .damaged(Self.repairHint(vault)) }
        await drain(vault)
        do {
            try await store.share(space, as: name)
        } catch {
            logger.error(
                "Sharing a collection failed", metadata: ["collection.id": "\(collection)", "error": "\(error)"])
            throw .failed("collection \(collection) was not shared: \(error)")
        }
        // Its journal's generation now counts the shared log's entries.
        journalGenerations[space] = try? await store.generation(of: space)
        logger.notice("Collection shared", metadata: ["collection.id": "\(collection)", "shared.name": "\(name)"])
    }

    /// Copies the collection the vault's shared store keeps as `name` into this vault and adds
    /// it, locked (its passcode, or another of its slots, opens it), as restoring a deleted one
    /// does. Its id is the one it has on the machine that shared it.
    ///
    /// A vault with no passcode yet can attach: the collection is then its first.
    ///
    /// - Returns: The collection's id.
    /// - Throws: ``ServiceError/limitExceeded(_:)``;
    ///   ``ServiceError/failed(_:)`` when the vault has no shared store, there is no such
    ///   collection, this vault holds it or a collection of its id already, or the shared store
    ///   cannot be reached; nothing is added then.
    public func attachCollection(_ name: String) async throws(ServiceError) -> CollectionID {
        await beginWrite()
        defer { endWrite() }
        // A vault with no passcode yet needs none for this: its catalog starts with the collection
        // attached, and `puffctl init` adds `login` later.
        var newCatalog = catalog ?? Catalog(hiddenKDF: mode.kdf)
        try checkRoomForCollection(hidden: false)
        let space: SpaceID
        do {
            space = try await store.attach(name)
        } catch {
            logger.error("Attaching a collection failed", metadata: ["shared.name": "\(name)", "error": "\(error)"])
            throw .failed("\(name) was not attached: \(error)")
        }
        var loaded = VaultLoader.Loaded()
        await VaultLoader.loadSpace(space, name: name, store: store, into: &loaded, logger: logger, tpm: tpm)
        guard let id = loaded.order.first, let vault = loaded.collections[id], collectionStates[id] == nil else {
            // Removing it here also ends its share here; the shared store keeps it.
            try? await store.remove(space)
            let which = loaded.order.first.map { "a collection named \($0) exists here already" }
            throw .failed(
                "\(name) was not attached: \(which ?? "it does not open as a collection (\(loaded.damaged))")")
        }
        damaged += loaded.damaged
        newCatalog.collections.append(Catalog.Entry(space: space, id: id.rawValue))
        do {
            try await saveCatalog(newCatalog)
        } catch {
            try? await store.remove(space)
            throw error
        }
        collectionStates[id] = vault
        collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
        journalGenerations[space] = try? await store.generation(of: space)
        emit(.collectionCreated(id))
        await ensureDefault()
        logger.notice(
            "Collection attached",
            metadata: ["collection.id": "\(id)", "shared.name": "\(name)", "items": "\(vault.count)"])
        return id
    }
}

extension SecretService {
    /// The names this vault's fleet collections are shared under, sorted: the paths whose
    /// policy `puffctl doctor` checks in OpenBao.
    public var sharedNames: [String] {
        collectionStates.values.compactMap { vault in vault.space.flatMap { store.sharedName(of: $0) } }.sorted()
    }
}
