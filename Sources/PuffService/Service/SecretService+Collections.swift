// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension SecretService {
    /// Every collection in a stable order: loaded ones by creation time, then new ones, `session` last.
    public var collections: [CollectionID] {
        collectionOrder
    }

    /// A collection's properties.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown collection.
    public func collectionInfo(_ id: CollectionID) throws(ServiceError) -> CollectionInfo {
        let state = try state(of: id)
        return CollectionInfo(
            label: state.record.label, isLocked: state.isLocked, created: state.record.created,
            modified: state.record.modified, itemCount: state.count)
    }

    /// Creates a collection, or returns the one `alias` already names (secret-service.md §6.2).
    ///
    /// The identifier comes from the label (§1.3). When `alias` already resolves, that collection is
    /// returned with `label` applied; otherwise the new collection gets the alias. No prompt yet.
    ///
    /// - Parameters:
    ///   - alias: An alias to resolve or set; nil or `""` for none.
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a malformed alias;
    ///   ``ServiceError/limitExceeded(_:)``; ``ServiceError/failed(_:)`` when the change cannot be saved.
    public func createCollection(label: String, alias: String?, client: ClientID) async throws(ServiceError)
        -> CollectionID
    {
        try checkLabel(label)
        await beginWrite()
        defer { endWrite() }
        let alias = alias.flatMap { $0.isEmpty ? nil : $0 }
        if let alias {
            guard CollectionIdentifier.isValidAlias(alias) else {
                throw .invalidArgument("alias must match [A-Za-z0-9_]+")
            }
            if let existing = readAlias(alias) {
                try await applyLabel(label, to: existing)
                return existing
            }
        }
        guard collectionStates.count < limits.collections else {
            throw .limitExceeded("at most \(limits.collections) collections may exist")
        }
        let id = CollectionID(CollectionIdentifier.make(fromLabel: label) { collectionStates[CollectionID($0)] != nil })
        let time = now()
        let record = StoredCollection(id: id.rawValue, label: label, created: time, modified: time)
        var changes: [RecordChange] = [.putCollection(record)]
        if let alias { changes.append(.setAlias(name: alias, collection: id.rawValue)) }
        try await persist(changes, touching: id)
        collectionStates[id] = CollectionState(record: record, items: ItemTable())
        // Keep `session` last so the order reads "persistent collections, then the scratch one".
        collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
        if let alias { aliases[alias] = id }
        logger.info("Collection created", metadata: ["collection.id": "\(id.rawValue)", "client.name": "\(client)"])
        emit(.collectionCreated(id))
        return id
    }

    /// Deletes a collection and its items, even while locked (gnome-keyring, secret-service.md §6.10).
    ///
    /// Aliases that pointed at it read as nil afterwards. Emits no per-item `ItemDeleted`.
    ///
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/invalidArgument(_:)`` for the
    ///   `session` collection, which always exists; ``ServiceError/failed(_:)`` when not saved.
    public func deleteCollection(_ id: CollectionID) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        _ = try state(of: id)
        guard id != .session else { throw .invalidArgument("the session collection cannot be deleted") }
        try await persist([.deleteCollection(id: id.rawValue)], touching: id)
        collectionStates[id] = nil
        collectionOrder.removeAll { $0 == id }
        emit(.collectionDeleted(id))
    }

    /// Sets a collection's label.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)``.
    public func setLabel(_ label: String, of id: CollectionID) async throws(ServiceError) {
        try checkLabel(label)
        await beginWrite()
        defer { endWrite() }
        guard try !state(of: id).isLocked else { throw .isLocked }
        try await applyLabel(label, to: id)
    }

    /// Persists and announces a new label; callers hold the write turn and have checked the lock.
    private func applyLabel(_ label: String, to id: CollectionID) async throws(ServiceError) {
        var record = try state(of: id).record
        guard record.label != label else { return }
        record.label = label
        if id != .session { record.modified = now() }
        try await persist([.putCollection(record)], touching: id)
        collectionStates[id]?.record = record
        emit(.collectionChanged(id, [.label(label), .modified(record.modified)]))
    }

    /// The collection an alias names, or nil when unset or when the collection no longer exists (§6.9).
    public func readAlias(_ name: String) -> CollectionID? {
        guard let id = aliases[name], collectionStates[id] != nil else { return nil }
        return id
    }

    /// Points `name` at a collection, or removes the alias when `collection` is nil.
    ///
    /// Any alias that is a valid path element is accepted (gnome-keyring only accepts `default`).
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a malformed name;
    ///   ``ServiceError/noSuchObject`` for an unknown collection; ``ServiceError/failed(_:)``.
    public func setAlias(_ name: String, to collection: CollectionID?) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        guard CollectionIdentifier.isValidAlias(name) else { throw .invalidArgument("alias must match [A-Za-z0-9_]+") }
        if let collection { _ = try state(of: collection) }
        try await persist([.setAlias(name: name, collection: collection?.rawValue)], touching: nil)
        aliases[name] = collection
    }
}
