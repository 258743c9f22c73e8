// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffConcurrency
public import PuffCrypto
public import PuffStore

extension SecretService {
    /// Unlocks `collection` through any of its slots that `credential` opens (``SlotCredential``;
    /// only slot `slot`, when given); with nil, tries a typed passcode on every closed hidden
    /// collection (one key derivation for all of them) and returns the first it opened.
    ///
    /// Key derivations and the opening of records run off the actor, so other clients are served
    /// meanwhile. A wrong typed credential is answered after a delay that doubles with each
    /// consecutive failure for that collection (0.5 s, 1 s, 2 s … at most 30 s); a TPM or a
    /// security key refuses on its own, without that delay.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/wrongPasscode``,
    ///   ``ServiceError/hardware(_:)``, ``ServiceError/slotNotFound(_:)``,
    ///   ``ServiceError/noMatchingSlot(_:)``, ``ServiceError/damaged(_:)``,
    ///   ``ServiceError/notInitialized``.
    @discardableResult
    public func unlock(_ collection: CollectionID?, with credential: SlotCredential, slot: KeySlot.ID? = nil)
        async throws(ServiceError) -> CollectionID
    {
        guard catalog != nil else { throw .notInitialized }
        guard let collection else {
            switch credential {
            case .typed(let passcode), .login(let passcode): return try await unlockHidden(passcode: passcode)
            case .hardware: throw .noMatchingSlot("a hidden collection opens with its passcode only")
            }
        }
        let vault = try state(of: collection)
        guard vault.isLocked, vault.header != nil else { return collection }
        // A Lock from now on, while this waits its turn or derives the key, wins over it.
        let since = vault.lockCount
        return try await credentialAttempt(credential, collection.rawValue) { () throws(ServiceError) in
            // Another attempt may have unlocked it, or it may be gone, while this waited its turn.
            guard collectionStates[collection] === vault else { throw .noSuchObject }
            guard vault.isLocked, let header = vault.header else { return collection }
            let opened = try await openSlot(of: vault, header, with: credential, only: slot)
            try await open(vault, master: opened.master, since: since)
            return collection
        }
    }

    /// ``unlock(_:with:slot:)`` with a typed passcode (or recovery code).
    @discardableResult
    public func unlock(_ collection: CollectionID?, passcode: SecureBytes) async throws(ServiceError) -> CollectionID {
        try await unlock(collection, with: .typed(passcode))
    }

    /// Opens every locked collection that has a tpm2 slot this machine's TPM unseals or a transit
    /// slot OpenBao decrypts for this machine's token, with no person (at start, and on `puffctl
    /// unlock`); the others, and hidden ones, stay as they are.
    ///
    /// - Returns: The collections it opened.
    public func unlockWithoutPerson() async -> [CollectionID] {
        guard tpm != nil || transit != nil else { return [] }
        var opened: [CollectionID] = []
        for id in collectionOrder {
            guard let vault = collectionStates[id], vault.isLocked, !vault.isHidden,
                let header = vault.header, header.slots.contains(where: { $0.kind == .tpm2 || $0.kind == .transit })
            else { continue }
            do throws(ServiceError) {
                let since = vault.lockCount
                let slot = try await openSlot(
                    of: vault, header, with: .hardware(pin: nil, passcode: nil, device: nil), only: nil, tpmOnly: true)
                try await open(vault, master: slot.master, since: since)
                opened.append(id)
            } catch {
                logger.notice(
                    "A collection's tpm2 or transit slot did not open it",
                    metadata: ["collection.id": "\(id)", "reason": "\(error)"])
            }
        }
        return opened
    }

    /// Runs `body`, an attempt with `credential` on `key`'s collection: one that takes something
    /// typed in the collection's passcode-attempt turn, with its delays (``passcodeAttempt(_:_:)``);
    /// hardware alone at once, since the TPM and the key refuse on their own.
    func credentialAttempt<Value>(
        _ credential: SlotCredential, _ key: String, _ body: () async throws(ServiceError) -> Value
    ) async throws(ServiceError) -> Value {
        if case .hardware(_, nil, _) = credential { return try await body() }
        return try await passcodeAttempt(key, body)
    }

    /// Opens `vault` with its master key. A collection whose records in memory carry its index
    /// opens in place: no journal read, no item record opened (``CollectionVault/unlockInPlace(master:)``).
    /// Any other reads its journal and opens every record once, off the actor, then installs the
    /// keys; either way the unlock is announced.
    ///
    /// - Parameter since: The vault's ``CollectionVault/lockCount`` when the unlock began (before
    ///   its key derivation); nil: now.
    /// - Throws: ``ServiceError/notConfirmed(_:)`` when a `Lock` came since (it wins: the key goes
    ///   unused), ``ServiceError/damaged(_:)``, ``ServiceError/wrongPasscode(_:)`` for a key of a
    ///   space the collection left meanwhile.
    func open(_ vault: CollectionVault, master: MasterKey, since: Int? = nil) async throws(ServiceError) {
        let since = since ?? vault.lockCount
        if let check = journalCheck {
            // A journal read from its snapshot is checked first; a bad frame replaces the vault.
            await check.value
            if let current = collectionStates[vault.id], current !== vault, !vault.isHidden {
                guard vault.lockCount == since else { throw lockWon(vault) }
                return try await open(current, master: master)
            }
        }
        guard vault.isLocked, let header = vault.header, let space = vault.space else { return }
        let id = vault.id
        do throws(CollectionRefusal) {
            try vault.send(.unlockStarted(since: since))
        } catch .lockedMeanwhile {
            throw lockWon(vault)
        } catch {
            return  // another unlock opened it
        }
        // An attempt that ends without opening says so.
        var opening: [CollectionAction]?
        defer { if opening == nil { _ = try? vault.send(.unlockFailed) } }
        // Read before the first audit entry, while nothing can append (no audit key yet).
        await primeAuditSequence(of: space)
        // The collection may have been deleted, opened by another call or re-keyed meanwhile.
        guard collectionStates[id] === vault || vault.isHidden, vault.isLocked else { return }
        guard vault.space == space else { throw .wrongPasscode(nil) }
        do throws(CollectionRefusal) {
            opening = try vault.unlockInPlace(master: master, since: since)
        } catch .lockedMeanwhile {
            throw lockWon(vault)
        } catch {
            return  // another unlock opened it
        }
        if let opening {
            return finishOpening(vault, master: master, opening)
        }
        let file = store.name(of: .journal(space))
        // A locked collection is read whole from its journal, so every record, live or not, is
        // authenticated in its place in the chain (a scan's clear prefixes prove nothing).
        var opened: Result<OpenedCollection, VaultDamage>
        var pulls: Int
        repeat {
            // A pull while the journal is read (a shared collection) appends to it: read again.
            pulls = vault.pulls
            let journal: JournalReplay
            do {
                journal = try await store.replay(space)
            } catch {
                throw .damaged("\(error)")
            }
            opened = await BlockingWork.result { () throws(VaultDamage) in
                try VaultOpening.open(journal, header: header, master: master, id: id, file: file, fields: nil)
            }
        } while vault.pulls != pulls
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
            do throws(CollectionRefusal) {
                opening = try vault.unlock(with: opened, since: since)
            } catch .lockedMeanwhile {
                throw lockWon(vault)
            } catch {
                return  // another unlock opened it, or did and a lock came after
            }
            if !opened.damage.isEmpty {
                logger.error(
                    "A collection opened with damage: what authenticates is readable, writes wait for puffctl repair",
                    metadata: ["collection.id": "\(id)", "damage": "\(opened.damage.joined(separator: "; "))"])
            }
        }
        // A version 1 head is not rewritten here: opening writes nothing (an older puffd still
        // reads the vault); the next append writes a version 2 head.
        if let opening { finishOpening(vault, master: master, opening) }
    }

    /// Logs an unlock that a `Lock` came after, and the error it answers: the Lock won, the key
    /// that unlock unwrapped goes unused (a Secret Service prompt ends dismissed).
    func lockWon(_ vault: CollectionVault) -> ServiceError {
        logger.notice(
            "An unlock was refused: the collection was locked while it was under way",
            metadata: ["collection.id": "\(vault.isHidden ? "(hidden)" : vault.id.rawValue)"])
        return .notConfirmed("the collection was locked again while this unlock was under way")
    }

    /// Reads the audit log's next sequence number for `space` off the actor, once, so the
    /// collection's first audit entry does not read the whole log on the actor.
    private func primeAuditSequence(of space: SpaceID) async {
        guard let auditLog, !auditLog.knowsSequence(of: space) else { return }
        let auditStore = auditLog.store
        let next = await BlockingWork.run { AuditLog.sequence(after: auditStore, space) }
        if !auditLog.knowsSequence(of: space) { auditLog.prime(space, next: next) }
    }

    /// Performs what unlocking `vault` with `master` asks of the service: trims the memory of a
    /// journal read whole, keeps the key, starts the auto-lock, announces it (a hidden one appears).
    private func finishOpening(_ vault: CollectionVault, master: MasterKey, _ actions: [CollectionAction]) {
        let id = vault.id
        if vault.space != nil { vault.headerKey = master.subkey(.header) }
        for action in actions {
            switch action {
            case .trimMemory: MemoryTrim.trim()  // the journal read whole and every record opened
            case .keepKey:
                if case .ephemeral = mode { vault.escrow = master }
                keepKey(master, of: vault)
            case .startAutoLock: startAutoLock(vault)
            case .announce where vault.isHidden && collectionStates[id] == nil:
                collectionStates[id] = vault
                collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
                if let space = vault.space { hiddenHeaders[space] = nil }
                for alias in vault.fields.aliases { aliases[alias] = id }
                emit(.collectionCreated(id))
            case .announce(let locked): announceLock(locked, id, viewChanged: !vault.isPrivate)
            default: break  // the vault's own, performed already
            }
        }
        logger.info("Collection unlocked", metadata: ["collection.id": "\(vault.isHidden ? "(hidden)" : id.rawValue)"])
    }

    /// Re-keys the collection under `new`, which must meet the collection's policy: a new master
    /// key seals every record again, so the old passcode opens no copy of what is written from
    /// now on. `old` need not meet the policy (it may predate it); it is any slot's credential.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/passcodePolicy(_:)`` (checked first,
    ///   so no key derivation runs and no wrong-passcode delay applies), ``ServiceError/wrongPasscode``,
    ///   ``ServiceError/failed(_:)``.
    public func changePasscode(
        of id: CollectionID, old: SecureBytes, new: SecureBytes, progress: ProgressHandler? = nil
    ) async throws(ServiceError) {
        let policy = try policy(of: id)
        guard policy.admits(new) else { throw .passcodePolicy(policy) }
        try await changePasscode(of: id, proof: .typed(old), new: new, progress: progress)
    }

    /// ``changePasscode(of:old:new:progress:)`` proved by any slot's credential: the passcode or
    /// login slot whose secret proved it gets `new` (else the passcode slot), so the old secret
    /// opens nothing; the other slots are kept as ``RekeyOptions`` allows (design §3 "Re-key").
    ///
    /// - Throws: as ``changePasscode(of:old:new:progress:)``, and ``ServiceError/wouldDropSlots(_:)``
    ///   when slots would go without `options.dropSlots` (before anything is written).
    public func changePasscode(
        of id: CollectionID, proof: SlotCredential, new: SecureBytes, options: RekeyOptions = RekeyOptions(),
        progress: ProgressHandler? = nil
    ) async throws(ServiceError) {
        let policy = try policy(of: id)
        guard policy.admits(new) else { throw .passcodePolicy(policy) }
        // A fleet collection is never re-keyed (``rekey``): its passcode slot alone changes.
        if let vault = collectionStates[id], sharedRefusal(vault, "re-keying (passwd)") != nil {
            return try await changeSharedPasscode(of: id, proof: proof, new: new)
        }
        let opened = try await openedSlot(of: id, with: proof)
        try await rekey(
            id, master: opened.master, new: new, opened: opened, proof: proof, options: options, progress: progress)
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

    /// Unwraps a collection's master key through any slot `credential` opens, without unlocking
    /// it (the proof a change asks for); a wrong typed credential costs the delay of a wrong unlock.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/wrongPasscode``, and the slot
    ///   errors of ``unlock(_:with:slot:)``.
    public func masterKey(of id: CollectionID, with credential: SlotCredential) async throws(ServiceError)
        -> MasterKey
    {
        try await openedSlot(of: id, with: credential).master
    }

    /// ``masterKey(of:with:)`` with the slot that opened and its typed key.
    func openedSlot(of id: CollectionID, with credential: SlotCredential, only: KeySlot.ID? = nil)
        async throws(ServiceError) -> OpenedSlot
    {
        guard collectionStates[id]?.header != nil else { throw .noSuchObject }
        return try await credentialAttempt(credential, id.rawValue) { () throws(ServiceError) in
            guard let header = collectionStates[id]?.header else { throw .noSuchObject }
            return try await openSlot(of: header, with: credential, only: only)
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
