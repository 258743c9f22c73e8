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
    /// is shown, after the key's PIN when the slot was enrolled with one; else the first such
    /// fido2+passcode slot, its passcode asked first (design §4: "typed first, the touch follows").
    func unlockWithSecurityKey(
        _ vault: CollectionVault, _ slots: [KeySlot], typed: TypedSlot?, _ asker: PromptAsker
    ) async -> SecurityKeyOutcome {
        guard let securityKeys else { return .noKey }
        // A touch alone before a touch and a passcode.
        for slot in slots.filter({ $0.kind == .fido2 }) + slots.filter({ $0.kind == .fido2Passcode }) {
            let key: KeySlot.FIDO2
            switch slot.parameters {
            case .fido2(let fido), .fido2Passcode(let fido, _): key = fido
            default: continue
            }
            let probe = SecurityKeyRequest(relyingParty: key.relyingParty, presence: false)
            // No key, or another one: nothing to touch; a refusal to probe is no better.
            guard (try? await securityKeys.holds(credentialID: key.credentialID, probe)) == true else { continue }
            return await touch(
                vault, slot, needsPIN: key.flags.contains(.pin), withPasscode: slot.kind == .fido2Passcode,
                typed: typed, asker)
        }
        return .noKey
    }

    /// Asks the slot's passcode when `withPasscode` and the PIN when `needsPIN` (each again after
    /// a wrong one, up to ``passcodeAttempts`` tries in all), then races the touch question
    /// against the key's answer. A wrong passcode is counted and delayed as a typed one is
    /// (``passcodeAttempt(_:_:)``): the key's touch alone opens nothing.
    private func touch(
        _ vault: CollectionVault, _ slot: KeySlot, needsPIN: Bool, withPasscode: Bool, typed: TypedSlot?,
        _ asker: PromptAsker
    ) async -> SecurityKeyOutcome {
        let label = vault.fields.label
        var pinError: String?
        var retries: Int?
        var passcodeError: String?
        var pin: SecureBytes?
        var passcode: SecureBytes?
        for attempt in 1...Self.passcodeAttempts {
            if withPasscode, passcode == nil {
                var request = asker.request(
                    .unlock(collection: vault.id, label: label, slot: .securityKeyPasscode(slotLabel: slot.label)),
                    policy: vault.header?.passcodePolicy)
                request.error = passcodeError
                switch await typedAnswer(request, asker) {
                case .typed(let answer): passcode = answer
                case .ended(let outcome): return .ended(outcome)
                }
            }
            if needsPIN, pin == nil {
                var request = asker.request(
                    .securityKeyPIN(collection: vault.id, label: label, slotLabel: slot.label, retries: retries),
                    policy: nil)
                request.error = pinError
                switch await typedAnswer(request, asker) {
                case .typed(let answer): pin = answer
                case .ended(let outcome): return .ended(outcome)
                }
            }
            let question = asker.request(
                .touchSecurityKey(collection: vault.id, label: label, slotLabel: slot.label, instead: typed),
                policy: nil)
            let result = await race(vault.id, slot.id, pin: pin, passcode: passcode, question, asker)
            if case .key(.success) = result { return .opened }
            guard !Task.isCancelled else { return .ended(.dismissedByPrompter) }
            let next =
                attempt < Self.passcodeAttempts
                ? ", try again (attempt \(attempt + 1) of \(Self.passcodeAttempts))" : ""
            switch result {
            case .key(.success): return .opened
            case .key(.failure(.hardware(.pinInvalid(let left)))) where needsPIN:
                retries = left
                pin = nil
                pinError = "Wrong PIN, try again"
            case .key(.failure(.wrongPasscode(let retry))) where withPasscode:
                passcode = nil
                passcodeError =
                    (retry.map { "Wrong passcode; the next try is accepted in \($0.shownDelay)" } ?? "Wrong passcode")
                    + next
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
        return .refused(passcode == nil && withPasscode ? "Wrong passcode" : "Wrong security key PIN")
    }

    /// A typed answer, or how the prompt ends instead.
    private enum TypedAnswer {
        case typed(SecureBytes)
        case ended(PromptOutcome)
    }

    /// The passcode or PIN `request` asks for, or how the prompt ends instead.
    private func typedAnswer(_ request: PromptRequest, _ asker: PromptAsker) async -> TypedAnswer {
        let reply: PromptReply
        do {
            reply = try await asker.prompter.prompt(request)
        } catch {
            return .ended(.prompterFailed)
        }
        guard !Task.isCancelled, case .passcode(let answer) = reply else { return .ended(.dismissedByPrompter) }
        return .typed(answer)
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
        _ id: CollectionID, _ slot: KeySlot.ID, pin: SecureBytes?, passcode: SecureBytes?, _ question: PromptRequest,
        _ asker: PromptAsker
    ) async -> Racer {
        await withTaskGroup(of: Racer.self) { group in
            group.addTask {
                do throws(ServiceError) {
                    let credential = SlotCredential.hardware(pin: pin, passcode: passcode, device: nil)
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
