// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension SecretService {
    /// Why a prompt ended without approval; only logged.
    enum PromptOutcome: Sendable {
        case approved
        case dismissedByPrompter
        case prompterFailed
        case timedOut
    }

    /// Starts a prompt and returns at once; the prompter runs in a task owned by the prompt table
    /// (secret-service.md §6.11 step 3).
    ///
    /// The prompt completes with `promptCompleted` when the prompter answers, or is dismissed when it
    /// declines, throws or does not answer within the prompt timeout.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown or finished prompt,
    ///   ``ServiceError/accessDenied`` for another client's prompt, ``ServiceError/alreadyExists``
    ///   when already started.
    public func startPrompt(
        _ id: PromptID, windowID: String, client: ClientID, application: String? = nil
    ) throws(ServiceError) {
        guard var prompt = prompts[id] else { throw .noSuchObject }
        guard prompt.owner == client else { throw .accessDenied }
        guard prompt.work == nil else { throw .alreadyExists }
        var requests: [PromptRequest] = []
        var seen: Set<CollectionID> = []
        for target in prompt.targets where seen.insert(target.collection).inserted {
            guard let state = collectionStates[target.collection] else { continue }
            // An ephemeral vault's collection has no passcode, so no policy to show.
            let policy = state.escrow == nil ? state.header?.passcodePolicy : nil
            requests.append(
                PromptRequest(
                    purpose: .unlock(collection: target.collection, label: state.fields.label),
                    caller: client, windowID: windowID, application: application, policy: policy))
        }
        let prompter = self.prompter
        prompt.work = Task {
            let outcome = await self.ask(prompter, requests)
            self.finishPrompt(id, outcome: outcome)
        }
        let clock = self.clock
        let timeout = promptTimeout
        prompt.timer = Task {
            // Cancellation means the prompt ended some other way; nothing to do then.
            guard (try? await Self.sleep(on: clock, for: timeout)) != nil else { return }
            self.finishPrompt(id, outcome: .timedOut)
        }
        prompts[id] = prompt
    }

    /// Dismisses a prompt, started or not, and emits `promptCompleted(dismissed: true)` with the
    /// typed empty result.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown or finished prompt,
    ///   ``ServiceError/accessDenied`` for another client's prompt.
    public func dismissPrompt(_ id: PromptID, client: ClientID) throws(ServiceError) {
        guard let prompt = prompts[id] else { throw .noSuchObject }
        guard prompt.owner == client else { throw .accessDenied }
        prompts[id] = nil
        Self.decrement(&promptCounts, prompt.owner)
        prompt.work?.cancel()
        prompt.timer?.cancel()
        emit(.promptCompleted(id, owner: prompt.owner, dismissed: true, result: .paths([])))
    }

    /// Completes a prompt exactly once; later calls (the loser of the prompter/timer race, or a
    /// prompter finishing after `Dismiss`) find it gone and do nothing.
    func finishPrompt(_ id: PromptID, outcome: PromptOutcome) {
        guard let prompt = prompts.removeValue(forKey: id) else { return }
        Self.decrement(&promptCounts, prompt.owner)
        prompt.work?.cancel()
        prompt.timer?.cancel()
        guard case .approved = outcome else {
            logger.info("Prompt dismissed", metadata: ["prompt.id": "\(id)", "reason": "\(outcome)"])
            emit(.promptCompleted(id, owner: prompt.owner, dismissed: true, result: .paths([])))
            return
        }
        // A collection may have been deleted, or locked again, while the person was deciding.
        let spellings = prompt.targets.filter { collectionStates[$0.collection]?.isLocked == false }.map(\.spelling)
        emit(.promptCompleted(id, owner: prompt.owner, dismissed: false, result: .paths(spellings)))
    }

    /// How many passcodes one prompt may try on one collection before it is dismissed.
    static let passcodeAttempts = 3

    /// Asks about each collection in turn and unlocks it with the answer, asking again after a
    /// wrong passcode (up to ``passcodeAttempts``); a refusal or error dismisses the whole prompt.
    private func ask(_ prompter: any Prompter, _ requests: [PromptRequest]) async -> PromptOutcome {
        for var request in requests {
            guard case .unlock(let collection, _) = request.purpose else { continue }
            var attempt = 1
            while true {
                let reply: PromptReply
                do {
                    reply = try await prompter.prompt(request)
                } catch {
                    return .prompterFailed
                }
                guard !Task.isCancelled else { return .dismissedByPrompter }
                if let vault = collectionStates[collection], let escrow = vault.escrow {
                    // No passcode exists (ephemeral vault): any approval opens it.
                    if case .dismissed = reply { return .dismissedByPrompter }
                    guard (try? await open(vault, master: escrow)) != nil else { return .dismissedByPrompter }
                    break
                }
                // A confirmation is not a passcode: it opens only a collection without one (above).
                guard case .passcode(let passcode) = reply else { return .dismissedByPrompter }
                do {
                    try await unlock(collection, passcode: passcode)
                    break
                } catch .wrongPasscode where attempt < Self.passcodeAttempts && !Task.isCancelled {
                    attempt += 1
                    request.error = "Wrong passcode, try again (attempt \(attempt) of \(Self.passcodeAttempts))"
                } catch {
                    return .dismissedByPrompter
                }
            }
        }
        return .approved
    }

    /// Sleeps on an existential clock (opens it so the generic `sleep(until:)` can be called).
    static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
