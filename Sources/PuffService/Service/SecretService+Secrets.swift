// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// An item's secret, encoded for `session` with a fresh IV (secret-service.md §6.8), once the
    /// access gate admits `caller` (``admit(_:caller:until:)``; it may ask the person first).
    ///
    /// - Throws: ``ServiceError/noSession`` (checked first), ``ServiceError/noSuchObject``,
    ///   ``ServiceError/isLocked`` (also when the item went away or locked while the person was
    ///   asked), ``ServiceError/readRefused(_:)``.
    public func secret(of id: ItemID, session sessionID: SessionID, caller: Caller) async throws(ServiceError)
        -> TransportSecret
    {
        // Reads answered on the bus thread before this one count as used first (session LRU, audit order).
        flushFastReads()
        _ = try session(sessionID, client: caller.client)
        _ = try record(of: id)
        guard !(try state(of: id.collection)).isLocked else { throw .isLocked }
        let outcome = await admitRecorded(id, caller: caller, until: readDeadline())
        // Looked up again: the gate may have waited for a person while anything changed.
        let session = try session(sessionID, client: caller.client)
        let record = try record(of: id)
        let state = try state(of: id.collection)
        guard !state.isLocked else { throw .isLocked }
        switch outcome {
        case .allowed: break
        case .refused(let reason): throw .readRefused(reason)
        case .dismissed: throw .readRefused(nil)
        }
        noteUse(state)
        let secret = try encode(record, of: id, in: state, session: session, sessionID: sessionID)
        audit(.read, of: id, label: record.label, caller: caller, result: .allowed)
        return secret
    }

    /// The secrets of several items, in the order asked (secret-service.md §6.7).
    ///
    /// Unknown and locked items are left out silently, and so are those the access gate refuses;
    /// the questions it asks share one deadline, so the call answers before clients time out.
    ///
    /// - Throws: ``ServiceError/noSession``, checked first, even for an empty list.
    public func secrets(
        for ids: [ItemID], session sessionID: SessionID, caller: Caller
    ) async throws(ServiceError) -> [(ItemID, TransportSecret)] {
        flushFastReads()
        _ = try session(sessionID, client: caller.client)
        let deadline = readDeadline()
        // The reads' audit entries are written together as the call ends, however it ends.
        defer { auditLog?.flush() }
        var result: [(ItemID, TransportSecret)] = []
        for id in ids {
            guard let state = collectionStates[id.collection], !state.isLocked, state.contains(id.number)
            else { continue }
            guard await admitRecorded(id, caller: caller, until: deadline) == .allowed else { continue }
            let session = try session(sessionID, client: caller.client)
            guard let state = collectionStates[id.collection], !state.isLocked, let record = state.items[id.number]
            else { continue }
            noteUse(state)
            result.append((id, try encode(record, of: id, in: state, session: session, sessionID: sessionID)))
            audit(.read, of: id, label: record.label, caller: caller, result: .allowed, deferred: true)
        }
        return result
    }

    /// Replaces an item's secret and content type. Emits `itemChanged(modified)` (§6.8 REC).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/noSession``,
    ///   ``ServiceError/invalidArgument(_:)``, ``ServiceError/limitExceeded(_:)``,
    ///   ``ServiceError/failed(_:)``.
    ///
    /// - Parameter caller: Who asks, for the audit log; `Caller(client)` when nil.
    public func setSecret(
        _ secret: TransportSecret, of id: ItemID, client: ClientID, caller: Caller? = nil
    ) async throws(ServiceError) {
        _ = try record(of: id)
        let state = try state(of: id.collection)
        guard !state.isLocked, state.sealer != nil else { throw .isLocked }
        let plaintext = try decode(secret, client: client)
        try await updateItem(id, .changeSecret, caller: caller ?? Caller(client)) { record in
            // Sealed under the write turn: a re-key may have changed the key while this waited.
            record.sealedSecret = state.sealer?.seal(plaintext, associatedData: Self.sealingContext(id)) ?? []
            record.contentType = secret.contentType
            return []
        }
    }

    /// Opens an item's secret into locked memory for the call that needs it: from its record
    /// (the only sealed form of a stored item), else from the secret sealed on its own (an item
    /// of the `session` collection).
    ///
    /// - Throws: ``ServiceError/damaged(_:)`` for a record that does not open (the collection
    ///   is marked damaged), ``ServiceError/failed(_:)`` for a secret that does not.
    func plaintext(of record: StoredItem, _ id: ItemID, in state: CollectionVault) throws(ServiceError) -> SecureBytes {
        try opened(record, id, in: state).secret
    }

    /// ``plaintext(of:_:in:)`` with the label and content type the item's record holds.
    func opened(_ record: StoredItem, _ id: ItemID, in state: CollectionVault) throws(ServiceError) -> ItemKey.Opened {
        guard let sealer = state.sealer else { throw .isLocked }
        let key = ItemKey(sealer: sealer, space: state.space, format: state.format, records: state.records)
        do {
            return try key.open(record, id)
        } catch {
            switch error {
            case .sealedApart:
                logger.error("A stored secret did not open", metadata: ["item.id": "\(id)"])
                throw .failed("the secret could not be read")
            case .record(let cause):
                let why = state.noteUnreadable(id.number, cause)
                logger.error("An item's record did not open", metadata: ["item.id": "\(id)"])
                throw .damaged(why)
            }
        }
    }
}

extension SecretService {
    /// How `collection` holds its items, for tests of an unlock's cost (issue 27): how many hold
    /// their record opened (label, attributes and times read), and how many a secret sealed on
    /// its own besides or instead of their record.
    package func itemForms(in collection: CollectionID) -> (opened: Int, sealedApart: Int) {
        guard let vault = collectionStates[collection] else { return (0, 0) }
        var forms = (opened: 0, sealedApart: 0)
        for number in vault.order {
            guard let item = vault.table[number] else { continue }
            if item.isOpened { forms.opened += 1 }
            if !item.sealedSecret.isEmpty { forms.sealedApart += 1 }
        }
        return forms
    }
}
