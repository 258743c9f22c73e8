// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
public import PuffStore

extension SecretService {
    /// A collection's slots, as `puffctl slot list` shows them: nothing secret. Read from the
    /// header, which is authenticated only once the collection was unlocked (before, a label is
    /// what the file says, as a prompt shows it).
    ///
    /// - Throws: ``ServiceError/noSuchObject``.
    public func slots(of id: CollectionID) throws(ServiceError) -> [SlotInfo] {
        guard let header = try state(of: id).header else { throw .noSuchObject }
        return header.slots.map(SlotInfo.init)
    }

    /// Adds a slot of `kind` to a collection (`puffctl slot add`), proved by any of its slots'
    /// credential (`proof`), which unlocks a locked collection first. The TPM seal or the
    /// security key's enrolment runs before the header is written; only the header changes
    /// (version 3; a header from before slots becomes version 3 here). Audited (`slot-add`), done
    /// or refused.
    ///
    /// - Returns: The new slot's id, and for a recovery slot its code as shown once
    ///   (`XXXX-XXXX-…`, ``RecoveryCode/format(_:)``); puffd keeps no copy.
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/invalidArgument(_:)`` (a hidden
    ///   collection, a bad label, a missing passcode), ``ServiceError/passcodePolicy(_:)``,
    ///   ``ServiceError/limitExceeded(_:)`` past 16 slots, the proof's errors
    ///   (``ServiceError/wrongPasscode(_:)``…), ``ServiceError/hardware(_:)``, ``ServiceError/failed(_:)``.
    public func addSlot(
        to id: CollectionID, kind: KeySlot.Kind, options: SlotOptions, proof: SlotCredential, caller: Caller
    ) async throws(ServiceError) -> (id: KeySlot.ID, recoveryCode: SecureBytes?) {
        let label = options.label ?? kind.description
        let audited = "\(kind) “\(label)”"
        var added: (id: KeySlot.ID, recoveryCode: SecureBytes?)?
        try await slotChange(.slotAdd, of: id, label: audited, proof: proof, caller: caller) {
            header throws(ServiceError) in
            guard KeySlot.isValidLabel(label) else {
                throw .invalidArgument("a slot label is 1 to 64 bytes of UTF-8 without control characters")
            }
            guard header.slots.count < VaultHeader.maximumSlots else {
                throw .limitExceeded("a collection holds at most \(VaultHeader.maximumSlots) slots")
            }
            try self.checkNewPasscodes(kind, options, of: id)
        } prepare: { header, _ throws(ServiceError) in
            // The TPM seal or the key's enrolment (a touch) runs before the write turn.
            try await self.enrol(kind, options, shared: header.slots.lazy.compactMap(\.parameters.typed).first)
        } change: { header, opened, new throws(ServiceError) in
            var header = try Self.slotted(header, opened)
            do {
                let slot = try header.addSlot(
                    label: label, parameters: new.parameters, master: opened.master, kek: new.kek)
                added = (slot, new.recoveryCode)
            } catch {
                throw .failed("the slot could not be added")
            }
            return header
        }
        guard let added else { throw .failed("the slot could not be added") }
        return added
    }

    /// Removes a slot (`puffctl slot remove`), proved by any slot's credential (this one's too).
    /// Only the header changes: nothing on a TPM or a security key is touched. Audited
    /// (`slot-remove`), done or refused.
    ///
    /// A thief who kept a copy of the old header still opens it with the removed slot's
    /// credential (same master key): `puffctl slot remove --rekey` then `passwd` closes that.
    ///
    /// - Throws: ``ServiceError/slotNotFound(_:)``, ``ServiceError/lastSlot`` (checked before the
    ///   proof and again before the write), ``ServiceError/invalidArgument(_:)`` for a hidden
    ///   collection, the proof's errors, ``ServiceError/failed(_:)``.
    public func removeSlot(_ slot: KeySlot.ID, from id: CollectionID, proof: SlotCredential, caller: Caller)
        async throws(ServiceError)
    {
        let described = (try? slots(of: id))?.first { $0.id == slot }?.described ?? "slot \(slot)"
        try await slotChange(.slotRemove, of: id, label: described, proof: proof, caller: caller) {
            header throws(ServiceError) in
            try Self.checkRemovable(slot, header)
        } prepare: { _, _ throws(ServiceError) in
        } change: { header, opened, _ throws(ServiceError) in
            try Self.checkRemovable(slot, header)
            var header = header
            header.slots.removeAll { $0.id == slot }
            header.sealMAC(with: opened.master)
            return header
        }
    }

    /// Renames a slot (`puffctl slot relabel`), proved by any slot's credential. Audited
    /// (`slot-relabel`, `passcode “old” → “new”`), done or refused.
    ///
    /// - Throws: ``ServiceError/slotNotFound(_:)``, ``ServiceError/invalidArgument(_:)`` (a bad
    ///   label, a hidden collection), the proof's errors, ``ServiceError/failed(_:)``.
    public func relabelSlot(
        _ slot: KeySlot.ID, of id: CollectionID, label: String, proof: SlotCredential, caller: Caller
    ) async throws(ServiceError) {
        let old = (try? slots(of: id))?.first { $0.id == slot }
        let described = "\(old?.described ?? "slot \(slot)") → “\(label)”"
        try await slotChange(.slotRelabel, of: id, label: described, proof: proof, caller: caller) {
            header throws(ServiceError) in
            guard header.slots.contains(where: { $0.id == slot }) else { throw .slotNotFound(slot) }
            guard KeySlot.isValidLabel(label) else {
                throw .invalidArgument("a slot label is 1 to 64 bytes of UTF-8 without control characters")
            }
        } prepare: { _, _ throws(ServiceError) in
        } change: { header, opened, _ throws(ServiceError) in
            var header = try Self.slotted(header, opened)
            guard let index = header.slots.firstIndex(where: { $0.id == slot }) else { throw .slotNotFound(slot) }
            header.slots[index].label = label
            header.sealMAC(with: opened.master)
            return header
        }
    }

    /// Refuses to remove a slot that is not there, or the last one.
    private static func checkRemovable(_ slot: KeySlot.ID, _ header: VaultHeader) throws(ServiceError) {
        guard header.slots.contains(where: { $0.id == slot }) else { throw .slotNotFound(slot) }
        guard header.slots.count > 1 else { throw .lastSlot }
    }

    /// `header` as version 3: a legacy header's one slot re-wrapped under its passcode's key,
    /// which the proof gave (it is the only way into a legacy header).
    static func slotted(_ header: VaultHeader, _ opened: OpenedSlot) throws(ServiceError) -> VaultHeader {
        guard header.isLegacy else { return header }
        guard let typedKey = opened.typedKey,
            let slotted = try? header.slotted(master: opened.master, typedKey: typedKey)
        else { throw .failed("the collection's header could not be written as version 3") }
        return slotted
    }

    /// Checks the passcodes a new slot takes against the collection's policy, before any key
    /// derivation or proof.
    private func checkNewPasscodes(_ kind: KeySlot.Kind, _ options: SlotOptions, of id: CollectionID)
        throws(ServiceError)
    {
        let needed: SecureBytes?
        switch kind {
        case .passcode, .login:
            guard let passcode = options.newPasscode else {
                throw .invalidArgument("a \(kind) slot needs its passcode")
            }
            needed = passcode
        case .fido2Passcode:
            guard let passcode = options.withPasscode else {
                throw .invalidArgument("a fido2+passcode slot needs its passcode")
            }
            needed = passcode
        case .recovery, .tpm2, .fido2, .transit:
            needed = nil
        }
        // A login password is the system's to judge: pam_puff takes it as it is.
        guard let needed, kind != .login else { return }
        let policy = try policy(of: id)
        guard policy.admits(needed) else { throw .passcodePolicy(policy) }
    }
}
