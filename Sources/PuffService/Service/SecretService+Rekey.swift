// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// Changes a collection's passcode by re-keying it (issue 24 item 5, docs/vault-format.md
    /// "Re-keying"): a fresh master key, every kept record opened and sealed again under it in a
    /// new space, with a new head and a header wrapping it under `new`; the audit log is sealed
    /// again under the new key, and the old key's copies in the kernel keyring are revoked.
    ///
    /// `master` is the collection's current key. The Argon2id run and the sealing run off the
    /// actor; reads are served throughout, while writes wait for the write turn this holds from
    /// reading the journal until the switch, so none is lost or left under the old key. The
    /// switch is the new header's rename (``RecordStore/replaceSpace(_:with:header:records:head:)``):
    /// a crash leaves the old collection with the old passcode or the new one with the new.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/passcodePolicy(_:)``,
    ///   ``ServiceError/damaged(_:)`` (a damaged journal is repaired first), ``ServiceError/wrongPasscode``
    ///   (the collection was re-keyed meanwhile), ``ServiceError/failed(_:)``; nothing changed then.
    /// `progress` counts the records opened and sealed again.
    func rekey(
        _ id: CollectionID, master: MasterKey, new: SecureBytes, opened: OpenedSlot? = nil,
        proof: SlotCredential? = nil,
        options: RekeyOptions = RekeyOptions(), progress: ProgressHandler? = nil
    ) async throws(ServiceError) {
        let policy = try policy(of: id)
        guard policy.admits(new) else { throw .passcodePolicy(policy) }
        guard let vault = collectionStates[id], let planned = vault.header, let oldSpace = vault.space else {
            throw .noSuchObject
        }
        // A new key means a new chain in a new space, which the other machines would not follow.
        if let refusal = sharedRefusal(vault, "re-keying (passwd)") { throw refusal }
        // Key derivations, the TPM and a security key's touch run before the write turn.
        let plan = try await rekeyPlan(
            planned, new: new, opened: opened, proof: proof, options: options, hidden: vault.isHidden)
        await beginWrite()
        defer { endWrite() }
        // The collection may have gone, or been re-keyed by another call, while the key was derived.
        guard collectionStates[id] === vault, let current = vault.header else { throw .noSuchObject }
        guard vault.space == oldSpace else { throw .wrongPasscode(nil) }
        // A slot added or removed meanwhile is not in the plan: it would be dropped unasked.
        guard current.slots == planned.slots else {
            throw .failed("the collection's slots changed meanwhile; try again")
        }
        guard vault.damage.isEmpty else { throw .damaged(Self.repairHint(vault)) }
        // The old key's files go once the switch is made: a snapshot keeps them (docs/backup.md).
        _ = try await snapshotBeforeChange("passwd")
        let newMaster = MasterKey()
        // The header as it is now (its locked search may have changed meanwhile), as version 3.
        let header = try rekeyedHeader(current, plan: plan, oldMaster: master, newMaster: newMaster)
        let keys = CollectionRekeying.Keys(oldSpace: oldSpace, oldMaster: master, header: header, newMaster: newMaster)
        let file = store.name(of: .journal(oldSpace))
        let journal: JournalReplay
        do {
            journal = try await store.replay(oldSpace)
        } catch {
            logger.error(
                "A re-key could not read the journal", metadata: ["collection.id": "\(id)", "error": "\(error)"])
            throw .failed("the collection could not be re-keyed: \(error)")
        }
        auditLog?.hold(oldSpace)
        let (auditStore, expected, unlocked) = (auditLog?.store, vault.tip, !vault.isLocked)
        // Every record opened, and the collection's record and its live items sealed again.
        let meter = meter(.records, progress)
        meter.expect(journal.records.count + vault.count + 1)
        meter.advance(by: 0)
        let work = await BlockingWork.result { () throws(VaultDamage) -> (CollectionRekeying.Output, StoreError?) in
            let output = try CollectionRekeying.rekey(
                journal, keys: keys, expected: expected, id: id, unlocked: unlocked, file: file,
                counting: { meter.advance() })
            guard let auditStore else { return (output, nil) }
            do throws(StoreError) {
                // Written before the switch, so the new space is whole when its header appears.
                let entries = try auditStore.entries(of: oldSpace).records
                if !entries.isEmpty {
                    try auditStore.append(CollectionRekeying.resealAudit(entries, keys: keys), to: keys.header.space)
                    try auditStore.sync()
                }
                return (output, nil)
            } catch {
                return (output, error)
            }
        }
        let output: CollectionRekeying.Output
        switch work {
        case .success((_, let auditError?)):
            auditLog?.release(oldSpace, abandoning: header.space)
            logger.error(
                "A re-key could not copy the audit log", metadata: ["collection.id": "\(id)", "error": "\(auditError)"])
            throw unsaved(auditError, "the collection's audit log could not be sealed again")
        case .success((let done, nil)):
            output = done
        case .failure(let damage):
            auditLog?.release(oldSpace, abandoning: header.space)
            logger.error("A re-key found damage", metadata: ["collection.id": "\(id)", "reason": "\(damage.message)"])
            throw .damaged("\(damage.message); puffctl repair \(id) keeps what authenticates, then change the passcode")
        }
        let replacement = SpaceReplacement(old: oldSpace, new: header.space, isSwitched: true)
        if let failure = await switchSpace(replacement, header: header, records: output.resealed, id: id) {
            auditLog?.release(oldSpace, abandoning: header.space)
            throw unsaved(failure, "the new passcode could not be saved; the old one still opens the collection")
        }
        if let opened = output.opened {
            vault.rekeyed(
                space: header.space, header: header, opened: opened, deadRecords: output.resealed.deadRecords)
        } else if let scanned = output.scanned {
            // An unlock that ended meanwhile opened the old space, whose key serves no more.
            if !vault.isLocked { lockNow(id) }
            vault.rekeyed(space: header.space, header: header, scanned: scanned)
        }
        if case .ephemeral = mode { vault.escrow = newMaster }
        if !vault.isLocked { vault.headerKey = newMaster.subkey(.header) }
        auditLog?.move(oldSpace, to: header.space, keys)
        await finishSwitch(replacement, of: vault)
        // Every copy of the old key outside puffd goes; the new one is kept as an unlock keeps it.
        keyKeeper?.forget(oldSpace)
        if !vault.isLocked { keepKey(newMaster, of: vault) }
        meter.finish()
        logger.info(
            "Passcode changed: the collection was re-keyed",
            metadata: [
                "collection.id": "\(vault.isHidden ? "(hidden)" : id.rawValue)",
                "records": "\(output.resealed.records.count)", "slots.kept": "\(plan.slots.count)",
                "slots.dropped": "\(plan.dropped.map(\.described).joined(separator: ", "))",
            ])
    }

    /// `current` in a new space under `newMaster`, as version 3 with the slots of `plan` (same ids
    /// and labels), the MAC sealed. An index key kept for the TPM is wrapped again.
    private func rekeyedHeader(_ current: VaultHeader, plan: RekeyPlan, oldMaster: MasterKey, newMaster: MasterKey)
        throws(ServiceError) -> VaultHeader
    {
        var header = VaultHeader(
            flags: current.flags, policyKind: current.policyKind, policyMinimumLength: current.policyMinimumLength,
            space: SpaceID.random(), collectionID: current.collectionID, lockedSearch: current.lockedSearch,
            indexKey: current.indexKey, indexSeal: current.indexSeal)
        do {
            if current.indexWrap != nil {
                header.indexWrap = try header.wrapIndexKey(current.unwrapIndexKey(master: oldMaster), master: newMaster)
            }
            for (slot, kek) in plan.slots {
                var wrapped = slot
                wrapped.wrappedMaster = try header.wrapMaster(newMaster, for: slot, kek: kek)
                header.slots.append(wrapped)
            }
        } catch {
            throw .failed("the collection key could not be wrapped")
        }
        header.nextSlotID = max(plan.nextSlotID, (header.slots.map(\.id).max() ?? 0) + 1)
        header.sealMAC(with: newMaster)
        return header
    }

    /// Writes the re-keyed space; nil once the switch happened (also when a write after it
    /// failed), else why not, after removing what was written of the new space.
    private func switchSpace(
        _ replacement: SpaceReplacement, header: VaultHeader, records: JournalResealing.Result, id: CollectionID
    ) async -> StoreError? {
        let failure: StoreError
        do {
            try await store.replaceSpace(
                replacement.old, with: replacement.new, header: header.encoded(), records: records.records,
                head: records.head)
            return nil
        } catch {
            failure = error
            logger.error(
                "Writing a re-keyed collection failed", metadata: ["collection.id": "\(id)", "error": "\(error)"])
        }
        let begun = try? await store.replacements().first { $0.new == replacement.new }
        if begun?.isSwitched == true { return nil }
        if let begun { try? await store.settleReplacement(begun, keepingNew: false) }
        return failure
    }

    /// After the switch: points the catalog at the new space (a visible collection), then
    /// removes the old space's files. A failure is logged and left for the next start, which
    /// ends the replacement the same way (``VaultLoader``).
    private func finishSwitch(_ replacement: SpaceReplacement, of vault: CollectionVault) async {
        if !vault.isHidden, var updated = catalog {
            for index in updated.collections.indices where updated.collections[index].space == replacement.old {
                updated.collections[index].space = replacement.new
            }
            catalog = updated
            do {
                try await store.replaceCatalog(updated.encoded())
            } catch {
                logger.error(
                    "Writing the catalog after a re-key failed; the next start finishes it",
                    metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
                return
            }
        }
        do {
            try await store.settleReplacement(replacement, keepingNew: true)
        } catch {
            logger.error(
                "Removing a re-keyed collection's old files failed; the next start removes them",
                metadata: ["collection.id": "\(vault.isHidden ? "(hidden)" : vault.id.rawValue)", "error": "\(error)"])
        }
    }
}
