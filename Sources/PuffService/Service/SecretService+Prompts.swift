// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension SecretService {
    /// How a prompt ended.
    enum PromptOutcome: Sendable {
        /// Approved; the `Completed` result, or nil for an unlock (computed when it completes).
        case approved(PromptResult?)
        case dismissedByPrompter
        case prompterFailed
        case timedOut
        /// What approval was to do failed; the prompt is dismissed.
        case failed(ServiceError)
    }

    /// Registers a prompt for `action`, owned by `owner`, and returns its id.
    ///
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when the client or the service already has
    ///   too many prompts waiting.
    func addPrompt(_ action: PendingPrompt.Action, owner: ClientID) throws(ServiceError) -> PromptID {
        try prompts.add(action, owner: owner, limits: limits)
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
        let asker = PromptAsker(prompter: prompter, caller: client, windowID: windowID, application: application)
        let action = prompt.action
        prompt.work = Task {
            let outcome = await self.run(action, asking: asker)
            self.finishPrompt(id, outcome: outcome)
        }
        let clock = self.clock
        let timeout = promptTimeout
        prompt.timer = Task {
            // Cancellation means the prompt ended some other way; nothing to do then.
            guard (try? await Self.sleep(on: clock, for: timeout)) != nil else { return }
            self.finishPrompt(id, outcome: .timedOut)
        }
        prompts.update(id, prompt)
    }

    /// Dismisses a prompt, started or not, and emits `promptCompleted(dismissed: true)` with the
    /// typed empty result.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown or finished prompt,
    ///   ``ServiceError/accessDenied`` for another client's prompt.
    public func dismissPrompt(_ id: PromptID, client: ClientID) throws(ServiceError) {
        guard let prompt = prompts[id] else { throw .noSuchObject }
        guard prompt.owner == client else { throw .accessDenied }
        _ = prompts.remove(id)
        prompt.work?.cancel()
        prompt.timer?.cancel()
        emit(.promptCompleted(id, owner: prompt.owner, dismissed: true, result: prompt.action.dismissedResult))
    }

    /// Completes a prompt exactly once; later calls (the loser of the prompter/timer race, or a
    /// prompter finishing after `Dismiss`) find it gone and do nothing.
    func finishPrompt(_ id: PromptID, outcome: PromptOutcome) {
        guard let prompt = prompts.remove(id) else { return }
        prompt.work?.cancel()
        prompt.timer?.cancel()
        guard case .approved(let result) = outcome else {
            logger.info("Prompt dismissed", metadata: ["prompt.id": "\(id)", "reason": "\(outcome)"])
            emit(.promptCompleted(id, owner: prompt.owner, dismissed: true, result: prompt.action.dismissedResult))
            return
        }
        if let result {
            emit(.promptCompleted(id, owner: prompt.owner, dismissed: false, result: result))
            return
        }
        // A collection may have been deleted, or locked again, while the person was deciding.
        guard case .unlock(let targets) = prompt.action else {
            emit(.promptCompleted(id, owner: prompt.owner, dismissed: false, result: .none))
            return
        }
        let unlocked = targets.filter { collectionStates[$0.collection]?.isLocked == false }.map(\.reference)
        emit(.promptCompleted(id, owner: prompt.owner, dismissed: false, result: .objects(unlocked)))
    }

    /// Sleeps on an existential clock (opens it so the generic `sleep(until:)` can be called).
    static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
