// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffConcurrency
import PuffStore
import PuffSystem

extension SecretService {
    /// The access gate in front of every secret read (issue 16): a persisted deny refuses; then
    /// the access mode decides, asking under `ask`; then a protected item is confirmed, every time.
    ///
    /// Returns at once, without a suspension, when no rule can apply (mode `open`, item without
    /// settings). Questions go through the prompter chain while the client's call waits, each
    /// bounded by `deadline` (time on ``timeline``). The actor is re-entrant: after every question
    /// the item and its collection are looked up again, and a read of an item deleted or locked
    /// meanwhile is refused.
    ///
    /// A sandboxed caller is refused every portal key, unless the portal asks for the app's own
    /// (`ownKey`, ``portalKey(for:caller:)``), which is read as in mode `open`.
    ///
    /// - Parameter deadline: When the call must have its answer; later questions are dismissed.
    func admit(_ id: ItemID, caller: Caller, until deadline: Duration, ownKey: Bool = false) async -> AccessOutcome {
        guard let settings = readableSettings(of: id) else { return .refused(.changedMeanwhile) }
        if !ownKey, refusesPortalKey(id, to: caller) { return .refused(.portalKey) }
        if access.admitsAtOnce(settings, ownKey: ownKey) { return .allowed }
        let contents = await access.contents(of: caller, for: settings)
        guard let settings = readableSettings(of: id) else { return .refused(.changedMeanwhile) }
        let askAccess: Bool
        let confirm: Bool
        switch access.plan(settings, caller: caller, contents: contents, ownKey: ownKey) {
        case .refuse(let reason): return .refused(reason)
        case .proceed(let ask, let protected): (askAccess, confirm) = (ask, protected)
        }
        if askAccess {
            let label = collectionStates[id.collection]?.items[id.number]?.label ?? ""
            let reply = await ask(.allowRead(item: id, label: label), caller: caller, until: deadline)
            guard readableSettings(of: id) != nil else { return .refused(.changedMeanwhile) }
            switch AccessDecision.accessAnswer(reply) {
            case .dismissed:
                return .dismissed
            case .deny(let remember):
                if remember { await persistAnswer(allows: false, for: id, caller: caller, contents: contents) }
                return .refused(.declined)
            case .allow(let remember):
                if remember { await persistAnswer(allows: true, for: id, caller: caller, contents: contents) }
            }
        }
        guard confirm || readableSettings(of: id)?.isProtected == true else { return .allowed }
        let label = collectionStates[id.collection]?.items[id.number]?.label ?? ""
        let reply = await ask(.confirmRead(item: id, label: label), caller: caller, until: deadline)
        guard readableSettings(of: id) != nil else { return .refused(.changedMeanwhile) }
        return AccessDecision.confirmation(reply)
    }

    /// The deadline of a read that starts now: the question timeout, or the prompt timeout when
    /// that is shorter.
    func readDeadline() -> Duration {
        access.deadline(from: timeline.now, promptTimeout: promptTimeout)
    }

    /// Whether ``admit(_:caller:until:)`` may wait (for a digest, a question or a write) before it
    /// answers for this item; in `open` mode an item with no settings is admitted at once.
    func mayWait(_ id: ItemID) -> Bool {
        access.mayWait(readableSettings(of: id))
    }

    /// The item's settings while its secret could be read (it exists, its collection unlocked).
    private func readableSettings(of id: ItemID) -> ItemSettings? {
        guard let state = collectionStates[id.collection], !state.isLocked, state.items[id.number] != nil else {
            return nil
        }
        return state.settings[id.number] ?? ItemSettings()
    }

    /// Asks `purpose` of the prompter chain (or of `other`), dismissed when `deadline` passes
    /// first or the prompter fails. The call gives its slot back while the person decides
    /// (``CallSlot``).
    func ask(
        _ purpose: PromptRequest.Purpose, caller: Caller, until deadline: Duration, through other: (any Prompter)? = nil
    ) async -> PromptReply {
        // A deadline already past asks nobody: no dialog is shown only to be withdrawn.
        guard deadline > timeline.now else { return .dismissed }
        let request = PromptRequest(
            purpose: purpose, caller: caller.client, windowID: "", application: caller.application)
        let prompter = other ?? self.prompter
        let timeline = self.timeline
        return await CallSlot.released {
            await Self.firstAnswer(to: request, from: prompter, until: deadline, timeline)
        }
    }

    /// The prompter's answer, or dismissed when `deadline` on `timeline` comes first.
    private static func firstAnswer(
        to request: PromptRequest, from prompter: any Prompter, until deadline: Duration, _ timeline: Timeline
    ) async -> PromptReply {
        await withTaskGroup(of: PromptReply?.self) { group in
            group.addTask { (try? await prompter.prompt(request)) ?? .dismissed }
            group.addTask {
                try? await timeline.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            guard let first, !Task.isCancelled else { return .dismissed }
            return first
        }
    }

    /// Persists the person's "always" or "deny" for the caller: a rule for its app when it is a
    /// Flatpak app, else for its executable. A caller without a known executable, or whose
    /// contents could not be hashed, gets no "always" persisted (a path-only allow would admit any
    /// contents later): the answer holds for this read only. A deny is kept for the path then,
    /// whatever its contents. A caller whose sandbox could not be read gets nothing persisted: the
    /// rule would name whatever it posed as.
    private func persistAnswer(allows: Bool, for id: ItemID, caller: Caller, contents: ExecutableContents) async {
        let remember: (ItemSettings) throws(ServiceError) -> ItemSettings
        switch caller.sandbox {
        case .unverified: return
        case .app(let app, _):
            remember = { settings throws(ServiceError) in
                try AccessDecision.remembering(settings, app: app, allows: allows)
            }
        case .host:
            guard let executable = caller.executable, !(allows && contents == .unreadable) else { return }
            let digest = contents.digest
            remember = { settings throws(ServiceError) in
                try AccessDecision.remembering(settings, executable: executable, digest: digest, allows: allows)
            }
        }
        do {
            try await changeSettings(of: id) { settings throws(ServiceError) in settings = try remember(settings) }
        } catch {
            // The answer still holds for this read; the next one asks again.
            logger.warning(
                "An access decision could not be saved",
                metadata: ["item.id": "\(id)", "caller": "\(caller)", "error": "\(error)"])
        }
    }
}
