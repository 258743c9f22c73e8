// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// Who a prompt asks, and for whom: makes the prompt's ``PromptRequest``s.
struct PromptAsker: Sendable {
    let prompter: any Prompter
    let caller: ClientID
    let windowID: String
    let application: String?

    /// A first question for `purpose`.
    func request(_ purpose: PromptRequest.Purpose, policy: PasscodePolicy?) -> PromptRequest {
        PromptRequest(purpose: purpose, caller: caller, windowID: windowID, application: application, policy: policy)
    }
}

extension SecretService {
    /// How many passcodes one question may take before the prompt is dismissed.
    static let passcodeAttempts = 3

    /// Asks what `action` needs and does it: the body of a started prompt.
    func run(_ action: PendingPrompt.Action, asking asker: PromptAsker) async -> PromptOutcome {
        switch action {
        case .unlock(let targets): await runUnlock(targets.map(\.collection), asker)
        case .create(let label, let alias): await runCreate(label: label, alias: alias, asker)
        case .changePasscode(let id): await runChange(id, asker)
        case .delete(let id): await runDelete(id, asker)
        }
    }

    /// Asks for a new collection's passcode (twice, by the prompter) and creates it. On a vault
    /// with no passcode yet, the new passcode becomes its first: it creates `login`, which also
    /// gets the aliases `default` and `login`, whatever label the client asked for.
    private func runCreate(label: String, alias: String?, _ asker: PromptAsker) async -> PromptOutcome {
        let policy = PasscodePolicy.standard
        var request = asker.request(.create(label: isInitialized ? label : "Login"), policy: policy)
        request.setsFirstPasscode = !isInitialized
        var created: CollectionID?
        if let failure = await askPasscode(
            request, asker,
            use: { passcode throws(ServiceError) in
                guard isInitialized else {
                    try await initialize(passcode: passcode, policy: policy)
                    created = .login
                    if let alias, readAlias(alias) == nil { try await setAlias(alias, to: .login) }
                    return
                }
                let id = try await createCollection(
                    label: label, passcode: passcode, isPrivate: false, isHidden: false, policy: policy,
                    aliases: alias.map { [$0] } ?? [])
                // Its creator may delete it again without a prompt (secret-service.md §6.10).
                collectionStates[id]?.creator = asker.caller
                created = id
            })
        {
            return failure
        }
        return .approved(.collection(created))
    }

    /// Asks for a collection's current passcode, then for its new one (twice, by the prompter),
    /// and re-keys the collection.
    private func runChange(_ id: CollectionID, _ asker: PromptAsker) async -> PromptOutcome {
        guard let vault = collectionStates[id], let policy = try? policy(of: id) else {
            return .failed(.noSuchObject)
        }
        let label = vault.fields.label
        var proved: (OpenedSlot, SecureBytes)?
        let current = asker.request(.currentPasscode(collection: id, label: label), policy: policy)
        if let failure = await askPasscode(
            current, asker,
            use: { passcode throws(ServiceError) in
                proved = (try await openedSlot(of: id, with: .typed(passcode)), passcode)
            })
        {
            return failure
        }
        guard let (opened, old) = proved else { return .failed(.wrongPasscode(nil)) }
        let new = asker.request(.newPasscode(collection: id, label: label), policy: policy)
        if let failure = await askPasscode(
            new, asker,
            use: { passcode throws(ServiceError) in
                try await rekey(id, master: opened.master, new: passcode, opened: opened, proof: .typed(old))
            })
        {
            return failure
        }
        return .approved(.none)
    }

    /// Asks `request` until `use` accepts the passcode. A wrong passcode or one that breaks the
    /// policy is asked again with the reason, up to ``passcodeAttempts`` answers in all.
    ///
    /// - Returns: nil once `use` succeeded; otherwise how the prompt ends.
    func askPasscode(
        _ request: PromptRequest, _ asker: PromptAsker,
        use: (SecureBytes) async throws(ServiceError) -> Void
    ) async -> PromptOutcome? {
        var request = request
        for attempt in 1...Self.passcodeAttempts {
            let reply: PromptReply
            do {
                reply = try await asker.prompter.prompt(request)
            } catch {
                return .prompterFailed
            }
            guard !Task.isCancelled else { return .dismissedByPrompter }
            // A confirmation is not a passcode.
            guard case .passcode(let passcode) = reply else { return .dismissedByPrompter }
            let reason: String
            do {
                try await use(passcode)
                return nil
            } catch .wrongPasscode(let retry) {
                reason =
                    retry.map { "Wrong passcode; the next try is accepted in \($0.shownDelay)" } ?? "Wrong passcode"
            } catch .passcodePolicy(let policy) {
                reason = "The passcode must be \(policy.requirement)"
            } catch {
                return .failed(error)
            }
            guard attempt < Self.passcodeAttempts, !Task.isCancelled else { break }
            request.error = "\(reason), try again (attempt \(attempt + 1) of \(Self.passcodeAttempts))"
        }
        return .dismissedByPrompter
    }
}
