// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// How asking a security key to open a collection ended.
enum SecurityKeyOutcome {
    /// The key opened the collection.
    case opened
    /// No present key holds a fido2 slot's credential, or puffd has no security keys.
    case noKey
    /// The person chose to type instead of touching the key.
    case typeInstead
    /// The key did not open it: why, for the person (the next question shows it).
    case refused(String)
    /// The prompt ends here: dismissed, or its prompter failed.
    case ended(SecretService.PromptOutcome)
}

extension SecretService {
    /// The first fido2 slot whose credential the present key holds (probed without a touch, as
    /// systemd-cryptsetup does), opened by a touch while ``PromptRequest/Purpose/touchSecurityKey(collection:label:slotLabel:instead:)``
    /// is shown, after the key's PIN when the slot was enrolled with one.
    func unlockWithSecurityKey(
        _ vault: CollectionVault, _ slots: [KeySlot], typed: TypedSlot?, _ asker: PromptAsker
    ) async -> SecurityKeyOutcome {
        guard let securityKeys else { return .noKey }
        for slot in slots where slot.kind == .fido2 {
            guard case .fido2(let key) = slot.parameters else { continue }
            let probe = SecurityKeyRequest(relyingParty: key.relyingParty, presence: false)
            // No key, or another one: nothing to touch; a refusal to probe is no better.
            guard (try? await securityKeys.holds(credentialID: key.credentialID, probe)) == true else { continue }
            return await touch(vault, slot, needsPIN: key.flags.contains(.pin), typed: typed, asker)
        }
        return .noKey
    }

    /// Asks the PIN when `needsPIN` (again after a wrong one, up to ``passcodeAttempts``), then
    /// races the touch question against the key's answer.
    private func touch(
        _ vault: CollectionVault, _ slot: KeySlot, needsPIN: Bool, typed: TypedSlot?, _ asker: PromptAsker
    ) async -> SecurityKeyOutcome {
        let label = vault.fields.label
        var pinError: String?
        var retries: Int?
        for _ in 1...Self.passcodeAttempts {
            var pin: SecureBytes?
            if needsPIN {
                var request = asker.request(
                    .securityKeyPIN(collection: vault.id, label: label, slotLabel: slot.label, retries: retries),
                    policy: nil)
                request.error = pinError
                let reply: PromptReply
                do {
                    reply = try await asker.prompter.prompt(request)
                } catch {
                    return .ended(.prompterFailed)
                }
                guard !Task.isCancelled, case .passcode(let typedPIN) = reply else {
                    return .ended(.dismissedByPrompter)
                }
                pin = typedPIN
            }
            let question = asker.request(
                .touchSecurityKey(collection: vault.id, label: label, slotLabel: slot.label, instead: typed),
                policy: nil)
            let result = await race(vault.id, slot.id, pin: pin, question, asker)
            if case .key(.success) = result { return .opened }
            guard !Task.isCancelled else { return .ended(.dismissedByPrompter) }
            switch result {
            case .key(.success): return .opened
            case .key(.failure(.hardware(.pinInvalid(let left)))) where needsPIN:
                retries = left
                pinError = "Wrong PIN, try again"
            case .key(.failure(.hardware(let refusal))):
                logger.info(
                    "A security key did not open the collection",
                    metadata: ["collection.id": "\(vault.id)", "reason": "\(refusal)"])
                let why: String = ServiceError.hardware(refusal)
                return .refused("The security key “\(slot.label)” did not open it: \(why)")
            case .key(.failure(let error)): return .ended(.failed(error))
            case .prompt(.typeInstead?) where typed != nil: return .typeInstead
            case .prompt(nil): return .ended(.prompterFailed)
            case .prompt: return .ended(.dismissedByPrompter)
            }
        }
        return .refused("Wrong security key PIN")
    }

    /// What ended a race between the key and the touch question.
    private enum Racer: Sendable {
        /// The key's answer (the collection opened, or why not).
        case key(Result<CollectionID, ServiceError>)
        /// The person's answer; nil when the prompter failed.
        case prompt(PromptReply?)
    }

    /// Unlocks through slot `slot` while `question` is shown: the first to end wins and the other
    /// is cancelled (a touch closes the question; a dismissed question cancels the key's wait,
    /// which libfido2 ends with CTAPHID CANCEL). A ``PromptReply/confirmed`` answer ("touched")
    /// leaves the key's wait running.
    private func race(
        _ id: CollectionID, _ slot: KeySlot.ID, pin: SecureBytes?, _ question: PromptRequest, _ asker: PromptAsker
    ) async -> Racer {
        await withTaskGroup(of: Racer.self) { group in
            group.addTask {
                do throws(ServiceError) {
                    let credential = SlotCredential.hardware(pin: pin, passcode: nil, device: nil)
                    return .key(.success(try await self.unlock(id, with: credential, slot: slot)))
                } catch {
                    return .key(.failure(error))
                }
            }
            group.addTask {
                do {
                    return .prompt(try await asker.prompter.prompt(question))
                } catch {
                    return .prompt(nil)
                }
            }
            var winner = Racer.prompt(.dismissed)
            while let answer = await group.next() {
                if case .prompt(.confirmed?) = answer { continue }
                winner = answer
                break
            }
            group.cancelAll()
            return winner
        }
    }
}
