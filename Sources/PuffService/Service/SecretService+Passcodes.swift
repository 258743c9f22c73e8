// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffConcurrency
public import PuffCrypto
import PuffStore

extension SecretService {
    /// Unlocks `collection` with `passcode`; with nil, tries the passcode on every closed hidden
    /// collection (one key derivation for all of them) and returns the first it opened.
    ///
    /// Argon2id and the opening of records run off the actor, so other clients are served
    /// meanwhile. A wrong passcode is answered after a delay that doubles with each consecutive
    /// failure for that collection (0.5 s, 1 s, 2 s … at most 30 s).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/wrongPasscode``,
    ///   ``ServiceError/damaged(_:)``, ``ServiceError/notInitialized``.
    @discardableResult
    public func unlock(_ collection: CollectionID?, passcode: SecureBytes) async throws(ServiceError) -> CollectionID {
        guard catalog != nil else { throw .notInitialized }
        guard let collection else { return try await unlockHidden(passcode: passcode) }
        let vault = try state(of: collection)
        guard vault.isLocked, vault.header != nil else { return collection }
        return try await passcodeAttempt(collection.rawValue) { () throws(ServiceError) in
            // Another attempt may have unlocked it, or it may be gone, while this waited its turn.
            guard collectionStates[collection] === vault else { throw .noSuchObject }
            guard vault.isLocked, let header = vault.header else { return collection }
            let key = try await passcodeKey(passcode, header: header)
            guard
                let master = try? MasterKey.unwrap(
                    header.wrappedKey, under: key, associatedData: header.wrapAssociatedData)
            else { throw .wrongPasscode(nil) }
            try await open(vault, master: master)
            return collection
        }
    }

    /// Opens `vault` with its master key: reads and opens its records off the actor when they
    /// are not in memory yet, then installs the keys and announces the unlock.
    func open(_ vault: CollectionVault, master: MasterKey) async throws(ServiceError) {
        guard vault.isLocked, let header = vault.header, let space = vault.space else { return }
        let id = vault.id
        let file = store.location.map { "\($0)/\(space.hex).journal" } ?? "\(space.hex).journal"
        // A collection not open yet is read whole from its journal, so every record, live or not,
        // is authenticated in its place in the chain (a scan's clear prefixes prove nothing).
        let needsItems = !vault.isOpen
        let journal: JournalReplay
        do {
            journal = needsItems ? try await store.replay(space) : JournalReplay(records: [], cut: nil, size: 0)
        } catch {
            throw .damaged("\(error)")
        }
        let opened = await BlockingWork.result { () throws(VaultDamage) in
            try VaultOpening.open(
                journal, header: header, master: master, id: id, file: file,
                fields: needsItems
                    ? nil
                    : CollectionFields(
                        id: id.rawValue, label: "", created: 0, modified: 0,
                        nextItemNumber: 1, aliases: []))
        }
        if case .success = opened, let auditLog, !auditLog.knowsSequence(of: space) {
            // Read off the actor now, while nothing can append (the collection has no audit key
            // yet), so its first audit entry does not read the whole log on the actor.
            let auditStore = auditLog.store
            auditLog.prime(space, next: await BlockingWork.run { AuditLog.sequence(after: auditStore, space) })
        }
        switch opened {
        case .failure(let damage):
            logger.error(
                "A collection failed to open", metadata: ["collection.id": "\(id)", "reason": "\(damage.message)"])
            throw .damaged(damage.message)
        case .success(let opened):
            // The collection may have been deleted, or opened by another call, while this ran.
            guard collectionStates[id] === vault || vault.isHidden, vault.isLocked else { return }
            // Or re-keyed: `master` is then the old key, which must not serve the new space.
            guard vault.space == space else { throw .wrongPasscode(nil) }
            vault.unlock(with: opened, replacingItems: needsItems)
            if needsItems, !opened.damage.isEmpty {
                logger.error(
                    "A collection opened with damage: what authenticates is readable, writes wait for puffctl repair",
                    metadata: ["collection.id": "\(id)", "damage": "\(opened.damage.joined(separator: "; "))"])
            }
            if case .ephemeral = mode { vault.escrow = master }
            keepKey(master, of: vault)
            startAutoLock(vault)
        }
        if vault.isHidden, collectionStates[id] == nil {
            collectionStates[id] = vault
            collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
            hiddenHeaders[space] = nil
            for alias in vault.fields.aliases { aliases[alias] = id }
            emit(.collectionCreated(id))
        } else {
            announceLock(false, id, viewChanged: needsItems && !vault.isPrivate)
        }
        logger.info("Collection unlocked", metadata: ["collection.id": "\(vault.isHidden ? "(hidden)" : id.rawValue)"])
    }

    /// Derives the passcode's key once under the hidden salt and tries it on every closed hidden
    /// collection, one such attempt at a time.
    private func unlockHidden(passcode: SecureBytes) async throws(ServiceError) -> CollectionID {
        try await passcodeAttempt("") { () throws(ServiceError) in try await tryHidden(passcode: passcode) }
    }

    private func tryHidden(passcode: SecureBytes) async throws(ServiceError) -> CollectionID {
        guard let catalog else { throw .notInitialized }
        let probe = VaultHeader(
            flags: [.private, .hidden], kdf: catalog.hiddenKDF, salt: catalog.hiddenSalt, space: SpaceID.random(),
            indexKey: nil, collectionID: nil)
        let key = try await passcodeKey(passcode, header: probe)
        var opened: CollectionID?
        for (space, header) in hiddenHeaders where header.salt == catalog.hiddenSalt && header.kdf == catalog.hiddenKDF
        {
            guard
                let master = try? MasterKey.unwrap(
                    header.wrappedKey, under: key, associatedData: header.wrapAssociatedData)
            else { continue }
            let vault = try await hiddenVault(space: space, header: header, master: master)
            try await open(vault, master: master)
            opened = opened ?? vault.id
        }
        // Asking again for one already open is no wrong passcode (and costs no delay).
        for vault in collectionStates.values where vault.isHidden {
            guard let header = vault.header,
                (try? MasterKey.unwrap(header.wrappedKey, under: key, associatedData: header.wrapAssociatedData)) != nil
            else { continue }
            opened = opened ?? vault.id
        }
        guard let opened else { throw .wrongPasscode(nil) }
        return opened
    }

    /// A closed hidden collection's vault, its id read from its sealed collection record.
    private func hiddenVault(space: SpaceID, header: VaultHeader, master: MasterKey) async throws(ServiceError)
        -> CollectionVault
    {
        let records: [JournalReplay.Record]
        let format: UInt8
        do {
            let journal = try await store.replay(space)
            records = journal.records
            format = journal.version
        } catch {
            throw .damaged("\(error)")
        }
        guard let sealer = try? SecretSealer(key: master.subkey(.records)),
            let first = records.first(where: {
                (try? VaultRecord(decoding: $0.bytes, format: format).kind) == .collection
            }),
            let record = try? VaultRecord(decoding: first.bytes, format: format),
            let plaintext = try? record.open(space: space, sealer: sealer),
            let fields = try? CollectionFields(parsing: plaintext)
        else { throw .damaged("a hidden collection's records do not open") }
        var id = CollectionID(fields.id)
        if collectionStates[id] != nil {
            // Its name was taken while it was hidden: show it under a free one for this session.
            id = CollectionID(
                CollectionIdentifier.make(fromLabel: fields.id) { collectionStates[CollectionID($0)] != nil })
        }
        let scanned = ScannedCollection(index: AttributeIndex(), hasher: KeyedHash())
        return CollectionVault(id: id, space: space, header: header, scanned: scanned)
    }

    /// Locks collections (all when `ids` is empty) without a prompt; hidden ones disappear again.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown id (nothing is locked then).
    public func lock(_ ids: [CollectionID]) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        for id in ids where collectionStates[id] == nil { throw .noSuchObject }
        for id in ids.isEmpty ? collectionOrder : ids { lockNow(id) }
    }

    /// Locks one collection now: wipes its keys (``setLocked(_:_:)`` announces it).
    func lockNow(_ id: CollectionID) {
        guard id != .session, let vault = collectionStates[id] else { return }
        guard vault.isHidden else {
            setLocked(true, id)
            return
        }
        vault.lock()
        collectionStates[id] = nil
        collectionOrder.removeAll { $0 == id }
        releaseAliases(of: id)
        if let space = vault.space, let header = vault.header { hiddenHeaders[space] = header }
        emit(.collectionDeleted(id))
    }

    /// Re-keys the collection under `new`, which must meet the collection's policy: a new master
    /// key seals every record again, so the old passcode opens no copy of what is written from
    /// now on. `old` need not meet the policy (it may predate it).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/passcodePolicy(_:)`` (checked first,
    ///   so no key derivation runs and no wrong-passcode delay applies), ``ServiceError/wrongPasscode``,
    ///   ``ServiceError/failed(_:)``.
    public func changePasscode(
        of id: CollectionID, old: SecureBytes, new: SecureBytes, progress: ProgressHandler? = nil
    ) async throws(ServiceError) {
        let policy = try policy(of: id)
        guard policy.admits(new) else { throw .passcodePolicy(policy) }
        let master = try await masterKey(of: id, passcode: old)
        try await rekey(id, master: master, new: new, progress: progress)
    }

    /// The passcode policy of a collection that has a header.
    ///
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/failed(_:)`` for a policy newer
    ///   than this puffd.
    func policy(of id: CollectionID) throws(ServiceError) -> PasscodePolicy {
        guard let header = collectionStates[id]?.header else { throw .noSuchObject }
        guard let policy = header.passcodePolicy else {
            throw .failed("the collection's passcode policy (kind \(header.policyKind)) is newer than this puffd")
        }
        return policy
    }

    /// Unwraps a collection's master key with `passcode` without unlocking it (the first step of
    /// a passcode change); a wrong passcode costs the same delay as a wrong unlock.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/wrongPasscode``.
    func masterKey(of id: CollectionID, passcode: SecureBytes) async throws(ServiceError) -> MasterKey {
        guard collectionStates[id]?.header != nil else { throw .noSuchObject }
        return try await passcodeAttempt(id.rawValue) { () throws(ServiceError) in
            guard let header = collectionStates[id]?.header else { throw .noSuchObject }
            let key = try await passcodeKey(passcode, header: header)
            guard
                let master = try? MasterKey.unwrap(
                    header.wrappedKey, under: key, associatedData: header.wrapAssociatedData)
            else { throw .wrongPasscode(nil) }
            return master
        }
    }

    /// Re-keys the collection under `new`, which must meet the policy: a new master key, every
    /// kept record sealed again under it in a new space, a new header (``rekey(_:master:new:)``).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/passcodePolicy(_:)``,
    ///   ``ServiceError/damaged(_:)``, ``ServiceError/failed(_:)``.
    func changePasscode(of id: CollectionID, master: MasterKey, new: SecureBytes) async throws(ServiceError) {
        try await rekey(id, master: master, new: new)
    }
}
