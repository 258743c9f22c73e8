// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// Stores a secret as a new item, or replaces the item with exactly the same attributes.
    ///
    /// With `replace`, only an item whose attribute set equals `attributes` byte for byte is
    /// replaced (the oldest, should there be several): it keeps its id and `Created`, and only
    /// `itemChanged` is emitted. A superset match is not replaced, unlike gnome-keyring
    /// (secret-service.md §6.3 REC). Under ``ItemRules/uniqueInternet`` an internet password
    /// also replaces the oldest one with the same server, user, protocol and port, whatever
    /// `replace` says, taking its attributes too. Otherwise a new item is added and
    /// `itemCreated` is emitted.
    /// The change is saved before this returns. The cost does not grow with the number of items.
    ///
    /// - Parameters:
    ///   - secret: Decoded with the session named inside it, which must belong to `client`.
    ///   - type: The gnome-keyring `Type` extension; `""` when not given.
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/noSession``,
    ///   ``ServiceError/invalidArgument(_:)`` for a badly encoded secret,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)`` when the change cannot be
    ///   saved (nothing changes then).
    ///   - caller: Who asks, for the audit log; `Caller(client)` when nil.
    public func createItem(
        in collection: CollectionID, label: String, attributes: Attributes, type: String,
        secret: TransportSecret, replace: Bool, client: ClientID, caller: Caller? = nil
    ) async throws(ServiceError) -> ItemID {
        try checkLabel(label)
        try checkAttributes(attributes)
        let caller = caller ?? Caller(client)
        try refusePortalKey(attributes, to: caller)
        // Made again whole (a new number, or the item to replace found again) when another
        // machine appended to a shared collection first.
        return try await retryingConflicts(in: collection) { () throws(ServiceError) in
            // The turn is held while the record is sealed and queued, not while it is flushed.
            let (id, action, write) = try await withPipelinedTurn { () throws(ServiceError) in
                try await stageCreate(
                    in: collection, label: label, attributes: attributes, type: type, contentType: secret.contentType,
                    replace: replace, caller: caller
                ) { () throws(ServiceError) in try decode(secret, client: client) }
            }
            try await audited(action, of: id, label: label, caller: caller) { () throws(ServiceError) in
                try await commit(write)
            }
            if action == .replace { await compactAfterWrite(write.vault) }
            return id
        }
    }

    /// `createItem`'s checks and its record, sealed and queued (under the write turn); the secret
    /// is `plaintext()`, taken once the collection is known to be open.
    func stageCreate(
        in collection: CollectionID, label: String, attributes: Attributes, type: String, contentType: String,
        replace: Bool, caller: Caller, plaintext: () throws(ServiceError) -> SecureBytes
    ) async throws(ServiceError) -> (ItemID, AuditAction, PreparedWrite) {
        let state = try state(of: collection)
        guard !state.isLocked, let sealer = state.sealer else { throw .isLocked }
        let plaintext = try plaintext()
        noteUse(state)
        let time = now()
        // Converted and hashed once: the digests are the lookups' keys, the record's tags and the
        // index's keys (design core-reshaped §2).
        let list = AttributeList(attributes)
        let digests = state.digests(of: list)
        // A pending write that changes what this one would replace is waited for first.
        if state.pending.touches(anyOf: replaceKeys(list, digests: digests, replace: replace)) { await drain(state) }
        var replaced = replacedItem(in: state, attributes: list, digests: digests, replace: replace)
        if let number = replaced, state.pending.touches(number) {
            await drain(state)
            replaced = replacedItem(in: state, attributes: list, digests: digests, replace: replace)
        }
        guard !state.isLocked, state.sealer != nil else { throw .isLocked }

        if let number = replaced, var record = state.items[number] {
            let id = ItemID(collection: collection, number: number)
            record.label = label
            // The identical set, or under unique_internet another set with the same key.
            record.attributeList = list
            record.type = type
            record.contentType = contentType
            record.sealedSecret = sealedApart(plaintext, id, in: state, sealer: sealer)
            record.modified = time
            let changed: [ItemProperty] = [
                .label(label), .attributes(attributes), .type(reportedType(of: record)), .modified(time),
            ]
            let write = try await prepareItem(
                record, digests: digests, secret: plaintext, in: state, replacing: true, action: .replace,
                caller: caller
            ) { [unowned state] in
                state.update(record, digests: digests)
                self.emit(.itemChanged(id, changed))
            }
            return (id, .replace, write)
        }

        guard state.count + state.pending.creates < limits.itemsPerCollection else {
            throw .limitExceeded("a collection holds at most \(limits.itemsPerCollection) items")
        }
        let number = state.fields.nextItemNumber
        guard number < VaultRecord.numberLimit else {
            throw .limitExceeded("the collection has handed out every item number")
        }
        let id = ItemID(collection: collection, number: number)
        var record = StoredItem(
            collection: collection.rawValue, number: number, label: label, attributes: [:], type: type,
            contentType: contentType,
            sealedSecret: sealedApart(plaintext, id, in: state, sealer: sealer), created: time, modified: time)
        record.attributeList = list
        // The collection record is not rewritten: its item counter and `Modified` follow from the
        // item records when the journal is read (docs/vault-format.md).
        let write = try await prepareItem(
            record, digests: digests, secret: plaintext, in: state, replacing: false, action: .create, caller: caller
        ) { [unowned state] in
            state.fields.modified = time
            state.insert(record, digests: digests)
            self.emit(.itemCreated(id))
        }
        // Taken now: the next write, queued before this one settles, gets the next number.
        state.fields.nextItemNumber = number + 1
        return (id, .create, write)
    }

    /// Sets an item's label. Emits `itemChanged(label, modified)`.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)``.
    public func setLabel(_ label: String, of id: ItemID, caller: Caller = .daemon) async throws(ServiceError) {
        try checkLabel(label)
        try await updateItem(id, .changeLabel, caller: caller) { record in
            record.label = label
            return [.label(label)]
        }
    }

    /// Replaces an item's attributes. Emits `itemChanged(attributes, [type,] modified)`.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)``.
    public func setAttributes(
        _ attributes: Attributes, of id: ItemID, caller: Caller = .daemon
    ) async throws(ServiceError) {
        try checkAttributes(attributes)
        try refusePortalKey(attributes, to: caller)
        try await updateItem(id, .changeAttributes, caller: caller) { record in
            let oldType = reportedType(of: record)
            record.attributes = attributes
            let newType = reportedType(of: record)
            // `Type` follows `xdg:schema`, so a changed schema attribute changes `Type` too (§9.2).
            return oldType == newType ? [.attributes(attributes)] : [.attributes(attributes), .type(newType)]
        }
    }

    /// Sets the stored `Type`. Emits `itemChanged(type, modified)` with the type clients now see.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)``, ``ServiceError/failed(_:)``.
    public func setType(_ type: String, of id: ItemID, caller: Caller = .daemon) async throws(ServiceError) {
        try checkLabel(type)
        try await updateItem(id, .changeType, caller: caller) { record in
            record.type = type
            return [.type(reportedType(of: record))]
        }
    }

    /// Applies `change` to an unlocked item, saves it, stamps `Modified`, emits `itemChanged` and
    /// records `action` by `caller` in the audit log.
    func updateItem(
        _ id: ItemID, _ action: AuditAction, caller: Caller, _ change: (inout StoredItem) -> [ItemProperty]
    ) async throws(ServiceError) {
        // Made again from the item as pulled when another machine appended first.
        try await retryingConflicts(in: id.collection) { () throws(ServiceError) in
            try await updateItemOnce(id, action, caller: caller, change)
        }
    }

    private func updateItemOnce(
        _ id: ItemID, _ action: AuditAction, caller: Caller, _ change: (inout StoredItem) -> [ItemProperty]
    ) async throws(ServiceError) {
        let (label, write) = try await withPipelinedTurn { () throws(ServiceError) in
            let state = try state(of: id.collection)
            // A pending write of the same item settles first: this one starts from it.
            if state.pending.touches(id.number) { await drain(state) }
            var record = try record(of: id)
            guard !state.isLocked else { throw .isLocked }
            if refusesPortalKey(id, to: caller) { throw .readRefused(.portalKey) }
            noteUse(state)
            var properties = change(&record)
            record.modified = now()
            properties.append(.modified(record.modified))
            let secret = try plaintext(of: record, id, in: state)
            let digests = state.digests(of: record.attributeList)
            let write = try await prepareItem(
                record, digests: digests, secret: secret, in: state, replacing: true, action: action, caller: caller
            ) { [unowned state, record, properties] in
                state.update(record, digests: digests)
                self.emit(.itemChanged(id, properties))
            }
            return (record.label, write)
        }
        try await audited(action, of: id, label: label, caller: caller) { () throws(ServiceError) in
            try await commit(write)
        }
        await compactAfterWrite(write.vault)
    }

    /// Appends `item`'s record (fields and `secret`, sealed) to its collection's journal;
    /// `digests` are its attributes' (``CollectionVault/digests(of:)``), for its tags. Call it
    /// holding a drained write turn (``beginWrite()``).
    func persistItem(
        _ item: StoredItem, digests: AttributeDigests, secret: SecureBytes, in vault: CollectionVault, replacing: Bool
    ) async throws(ServiceError) {
        guard vault.space != nil, vault.sealer != nil else { return }
        try await persist(
            itemDraft(item, digests: digests, secret: secret, in: vault), in: vault, obsoleting: replacing ? 1 : 0)
    }

    /// Seals and queues `item`'s record (``prepare(_:in:obsoleting:number:keys:creates:apply:)``);
    /// a failure to queue it is audited as `action` failed.
    func prepareItem(
        _ item: StoredItem, digests: AttributeDigests, secret: SecureBytes, in vault: CollectionVault, replacing: Bool,
        action: AuditAction, caller: Caller, apply: @escaping () -> Void
    ) async throws(ServiceError) -> PreparedWrite {
        guard vault.space != nil, vault.sealer != nil else {
            return PreparedWrite(vault: vault, entry: nil, apply: apply)
        }
        do throws(ServiceError) {
            return try await prepare(
                itemDraft(item, digests: digests, secret: secret, in: vault), in: vault, obsoleting: replacing ? 1 : 0,
                number: item.number, keys: digests.keys, creates: !replacing, apply: apply)
        } catch {
            if !error.isRetried {
                audit(
                    action, of: ItemID(collection: vault.id, number: item.number), label: item.label, caller: caller,
                    result: .failed)
            }
            throw error
        }
    }

    private func itemDraft(
        _ item: StoredItem, digests: AttributeDigests, secret: SecureBytes, in vault: CollectionVault
    ) -> RecordDraft {
        let fields = ItemFields(
            label: item.label, attributes: item.attributeList, type: item.type, contentType: item.contentType,
            created: item.created, modified: item.modified)
        return RecordDraft(
            kind: .item, number: item.number, tags: vault.tags(of: digests), plaintext: fields.plaintext(secret: secret)
        )
    }

    /// Deletes an item. Emits `itemDeleted`.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/failed(_:)``.
    public func deleteItem(_ id: ItemID, caller: Caller = .daemon) async throws(ServiceError) {
        // The item may be gone after the pull (deleted on the other machine too): noSuchObject.
        try await retryingConflicts(in: id.collection) { () throws(ServiceError) in
            try await deleteItemOnce(id, caller: caller)
        }
    }

    private func deleteItemOnce(_ id: ItemID, caller: Caller) async throws(ServiceError) {
        let (label, write) = try await withPipelinedTurn { () throws(ServiceError) in
            let state = try state(of: id.collection)
            if state.pending.touches(id.number) { await drain(state) }
            let label = try record(of: id).label
            guard !state.isLocked else { throw .isLocked }
            if refusesPortalKey(id, to: caller) { throw .readRefused(.portalKey) }
            noteUse(state)
            let time = now()
            let apply = { [unowned state] in
                state.remove(id.number)
                state.fields.modified = time
                self.emit(.itemDeleted(id))
            }
            guard state.space != nil, state.sealer != nil else {
                return (label, PreparedWrite(vault: state, entry: nil, apply: apply))
            }
            let record = RecordDraft(
                kind: .itemDeleted, number: id.number, tags: [], plaintext: DeletionPayload.plaintext(time: time))
            do throws(ServiceError) {
                // The item's settings record, if any, describes nothing from now on either.
                let write = try await prepare(
                    record, in: state, obsoleting: 2 + state.settingsRecordCount(of: id.number), number: id.number,
                    apply: apply)
                return (label, write)
            } catch {
                if !error.isRetried { audit(.delete, of: id, label: label, caller: caller, result: .failed) }
                throw error
            }
        }
        guard write.entry != nil else { return try await commit(write) }
        try await audited(.delete, of: id, label: label, caller: caller) { () throws(ServiceError) in
            try await commit(write)
        }
        await compactAfterWrite(write.vault)
    }

    /// The secret sealed on its own for an item kept in memory: only an item of a collection
    /// without a journal (`session`) needs it. A stored item's only sealed form is its record,
    /// which the collection takes once it is durable (design core-reshaped §2: one seal per write).
    private func sealedApart(
        _ plaintext: SecureBytes, _ id: ItemID, in state: CollectionVault, sealer: SecretSealer
    ) -> [UInt8] {
        state.space == nil ? sealer.seal(plaintext, associatedData: Self.sealingContext(id)) : []
    }

    /// What a sealed secret is bound to: its item, so a sealed value moved to another item fails
    /// to open.
    static func sealingContext(_ id: ItemID) -> [UInt8] {
        Array("puff.item.v1\u{0}\(id.collection.rawValue)\u{0}\(id.number)".utf8)
    }
}
