// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// Opens each locked collection in turn, asking as little as it can, in the order of
    /// docs/design/unlock-slots.md §3: its tpm2 and transit slots with no question; then a fido2 slot whose
    /// credential the present security key holds (probed without a touch), with "touch your
    /// security key" shown while the key waits, or else such a fido2+passcode slot, its passcode
    /// asked first; then what it opens with typed, named (``TypedSlot``).
    func runUnlock(_ collections: [CollectionID], _ asker: PromptAsker) async -> PromptOutcome {
        var seen: Set<CollectionID> = []
        for collection in collections where seen.insert(collection).inserted {
            // Gone, or unlocked some other way (puffctl) while an earlier one was asked about.
            guard let vault = collectionStates[collection], vault.isLocked else { continue }
            let failure =
                if let escrow = vault.escrow {
                    await confirmEscrowed(vault, escrow, asker)
                } else {
                    await unlockAsking(vault, asker)
                }
            if let failure { return failure }
        }
        return .approved(nil)
    }

    /// An ephemeral vault's collection has no passcode: a confirmation opens it.
    private func confirmEscrowed(_ vault: CollectionVault, _ escrow: MasterKey, _ asker: PromptAsker) async
        -> PromptOutcome?
    {
        let purpose = PromptRequest.Purpose.unlock(collection: vault.id, label: vault.fields.label)
        let reply: PromptReply
        do {
            reply = try await asker.prompter.prompt(asker.request(purpose, policy: nil))
        } catch {
            return .prompterFailed
        }
        guard !Task.isCancelled else { return .dismissedByPrompter }
        if case .dismissed = reply { return .dismissedByPrompter }
        guard (try? await open(vault, master: escrow)) != nil else { return .dismissedByPrompter }
        return nil
    }

    /// One collection through its slots: nil once it is open, else how the prompt ends.
    private func unlockAsking(_ vault: CollectionVault, _ asker: PromptAsker) async -> PromptOutcome? {
        let id = vault.id
        let slots = vault.header?.slots ?? []
        let typed = Self.typedSlot(slots)
        if await unlockWithTPM(id, slots) { return nil }
        var reason: String?
        switch await unlockWithSecurityKey(vault, slots, typed: typed, asker) {
        case .opened: return nil
        case .ended(let outcome): return outcome
        case .refused(let why): reason = why
        case .typeInstead, .noKey: break
        }
        // The key may have answered just as the person chose to type.
        guard vault.isLocked else { return nil }
        guard let typed else {
            logger.notice(
                "No slot of the collection opens without its security key, and the key did not open it",
                metadata: ["collection.id": "\(id)", "reason": "\(reason ?? "no key holds its credential")"])
            return .dismissedByPrompter
        }
        var request = asker.request(
            .unlock(collection: id, label: vault.fields.label, slot: typed),
            policy: typed.followsPolicy ? vault.header?.passcodePolicy : nil)
        request.error = reason
        return await askPasscode(request, asker) { passcode throws(ServiceError) in
            try await unlock(id, with: .typed(passcode))
        }
    }

    /// Tries each tpm2 and transit slot, with no person; true once one opened the collection.
    private func unlockWithTPM(_ id: CollectionID, _ slots: [KeySlot]) async -> Bool {
        for slot in slots where (slot.kind == .tpm2 && tpm != nil) || (slot.kind == .transit && transit != nil) {
            do throws(ServiceError) {
                try await unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil), slot: slot.id)
                return true
            } catch {
                logger.info(
                    "A \(slot.kind) slot did not open the collection",
                    metadata: ["collection.id": "\(id)", "reason": "\(error)"])
            }
        }
        return false
    }

    /// What a collection's typed slots take, for the question: nil when it has none.
    static func typedSlot(_ slots: [KeySlot]) -> TypedSlot? {
        let kinds = Set(slots.map(\.kind))
        if kinds.contains(.passcode) { return kinds.contains(.recovery) ? .passcodeOrRecoveryCode : .passcode }
        if kinds.contains(.login) { return .loginPassword }
        if kinds.contains(.recovery) { return .recoveryCode }
        return nil
    }
}
