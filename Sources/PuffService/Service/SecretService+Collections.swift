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
            label: state.fields.label, isLocked: state.isLocked, created: state.fields.created,
            modified: state.fields.modified, itemCount: state.count)
    }

    /// Creates a collection, or returns the one `alias` already names (secret-service.md §6.2).
    ///
    /// When `alias` already resolves, that collection is returned with `label` applied. Otherwise a
    /// new collection needs a new passcode, which only a person can give: a prompt is returned
    /// that asks for it and completes with the new collection (on a vault with no passcode yet,
    /// it sets the first one and creates `login`). An ephemeral vault has no passcodes: the
    /// collection is created at once, its identifier made from the label (§1.3).
    ///
    /// - Parameters:
    ///   - alias: An alias to resolve or set; nil or `""` for none.
    /// - Returns: The collection, or the prompt that will create it.
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a malformed alias;
    ///   ``ServiceError/limitExceeded(_:)``; ``ServiceError/failed(_:)`` when the change cannot be saved.
    public func createCollection(label: String, alias: String?, client: ClientID) async throws(ServiceError)
        -> (collection: CollectionID?, prompt: PromptID?)
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
                return (existing, nil)
            }
        }
        try checkRoomForCollection(hidden: false)
        guard case .ephemeral = mode else {
            return (nil, try addPrompt(.create(label: label, alias: alias), owner: client))
        }
        guard catalog != nil else { throw .notInitialized }
        let id = CollectionID(CollectionIdentifier.make(fromLabel: label) { collectionStates[CollectionID($0)] != nil })
        _ = try await makeCollection(
            id: id, label: label, passcode: nil, flags: [], aliases: alias.map { [$0] } ?? [], creator: client)
        return (id, nil)
    }

    /// Hands out a prompt that changes a collection's passcode: it asks for the current one, then
    /// for a new one that meets the collection's policy (gnome-keyring's `ChangeWithPrompt`).
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown collection or one without a
    ///   passcode (`session`, an ephemeral vault's); ``ServiceError/limitExceeded(_:)``.
    public func changePasscodePrompt(_ id: CollectionID, client: ClientID) throws(ServiceError) -> PromptID {
        guard let vault = collectionStates[id], vault.header != nil, vault.escrow == nil else { throw .noSuchObject }
        return try addPrompt(.changePasscode(id), owner: client)
    }

    /// Sets a collection's label.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)``.
    public func setLabel(_ label: String, of id: CollectionID) async throws(ServiceError) {
        try checkLabel(label)
        try await retryingConflicts(in: id) { () throws(ServiceError) in
            await beginWrite()
            defer { endWrite() }
            guard try !state(of: id).isLocked else { throw .isLocked }
            try await applyLabel(label, to: id)
        }
    }

    /// Persists and announces a new label; callers hold the write turn. A locked collection
    /// keeps its label (its collection record cannot be sealed without its key).
    private func applyLabel(_ label: String, to id: CollectionID) async throws(ServiceError) {
        let vault = try state(of: id)
        guard vault.fields.label != label, !vault.isLocked else { return }
        var fields = vault.fields
        fields.label = label
        if id != .session { fields.modified = now() }
        if vault.space != nil { try await persist(collectionRecord(fields, in: vault), in: vault, obsoleting: 1) }
        vault.fields = fields
        emit(.collectionChanged(id, [.label(label), .modified(fields.modified)]))
    }

    /// Writes `catalog` and makes it the current one.
    func saveCatalog(_ new: Catalog) async throws(ServiceError) {
        do {
            try await store.replaceCatalog(new.encoded())
        } catch {
            logger.error("Writing the catalog failed", metadata: ["error": "\(error)"])
            throw unsaved(error, "the change could not be saved")
        }
        catalog = new
    }

    /// The collection an alias names, or nil when unset or when the collection no longer exists (§6.9).
    public func readAlias(_ name: String) -> CollectionID? {
        guard let id = aliases[name], collectionStates[id] != nil else { return nil }
        return id
    }

    /// Points `name` at a collection, or removes the alias when `collection` is nil.
    ///
    /// Any alias that is a valid path element is accepted (gnome-keyring only accepts `default`).
    /// An alias of a hidden collection is sealed in that collection's own record, never in the
    /// catalog: it resolves while the collection is open, and otherwise reads as the catalog says.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a malformed name;
    ///   ``ServiceError/noSuchObject`` for an unknown collection; ``ServiceError/failed(_:)``.
    public func setAlias(_ name: String, to collection: CollectionID?) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        guard CollectionIdentifier.isValidAlias(name) else { throw .invalidArgument("alias must match [A-Za-z0-9_]+") }
        let target = try collection.map { id throws(ServiceError) in try state(of: id) }
        // Open hidden collections are unlocked, so their records can be rewritten.
        for vault in collectionStates.values
        where vault.isHidden && vault !== target && vault.fields.aliases.contains(name) {
            try await setHiddenAliases(vault.fields.aliases.filter { $0 != name }, of: vault)
        }
        if let target, target.isHidden {
            if !target.fields.aliases.contains(name) {
                try await setHiddenAliases(target.fields.aliases + [name], of: target)
            }
        } else if var catalog, name != "session" {
            catalog.aliases[name] = collection?.rawValue
            try await saveCatalog(catalog)
        }
        aliases[name] = collection
    }

    /// Seals a hidden collection's new alias list in a collection record.
    private func setHiddenAliases(_ names: [String], of vault: CollectionVault) async throws(ServiceError) {
        // A listed hidden collection is open; should that ever not hold, fail rather than trap.
        guard vault.sealer != nil else { throw .isLocked }
        var fields = vault.fields
        fields.aliases = names
        try await persist(collectionRecord(fields, in: vault), in: vault, obsoleting: 1)
        vault.fields = fields
    }

    /// Points every alias that names `id` back at what the catalog says (nil when nothing), for a
    /// hidden collection that closed or any collection deleted: its aliases must not resolve to
    /// whatever collection takes its name next.
    func releaseAliases(of id: CollectionID) {
        for (name, target) in aliases where target == id {
            aliases[name] = catalog?.aliases[name].map(CollectionID.init)
        }
    }
}
