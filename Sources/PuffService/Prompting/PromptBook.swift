// SPDX-License-Identifier: Apache-2.0

/// The prompts handed out and not yet completed (secret-service.md §6.11), whose each is, and the
/// limits on how many may wait. A value the service owns; the prompters' tasks live in the entries.
struct PromptBook: Sendable {
    private var prompts: [PromptID: PendingPrompt] = [:]
    /// Waiting prompts per client, for ``ServiceLimits/promptsPerClient``; none at zero.
    private var counts: [ClientID: Int] = [:]
    private var nextNumber: UInt64 = 1

    /// How many prompts wait.
    var count: Int { prompts.count }

    /// The prompt `id`, if it has not completed.
    subscript(id: PromptID) -> PendingPrompt? {
        prompts[id]
    }

    /// Registers a prompt for `action`, owned by `owner`, and returns its id.
    ///
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when the client or the service already has
    ///   too many prompts waiting.
    mutating func add(
        _ action: PendingPrompt.Action, owner: ClientID, limits: ServiceLimits
    ) throws(ServiceError) -> PromptID {
        guard counts[owner, default: 0] < limits.promptsPerClient else {
            throw .limitExceeded("a connection may have at most \(limits.promptsPerClient) prompts waiting")
        }
        guard prompts.count < limits.prompts else {
            throw .limitExceeded("at most \(limits.prompts) prompts may wait at once")
        }
        let id = PromptID("p\(nextNumber)")
        nextNumber += 1
        prompts[id] = PendingPrompt(owner: owner, action: action)
        counts[owner, default: 0] += 1
        return id
    }

    /// Replaces a waiting prompt's entry (its started work and timer); nothing for a gone one.
    mutating func update(_ id: PromptID, _ prompt: PendingPrompt) {
        guard prompts[id] != nil else { return }
        prompts[id] = prompt
    }

    /// Takes `id` out, once: a second call finds it gone.
    mutating func remove(_ id: PromptID) -> PendingPrompt? {
        guard let prompt = prompts.removeValue(forKey: id) else { return nil }
        counts.decrement(prompt.owner)
        return prompt
    }

    /// Takes out every prompt of `client`, which left the bus, for the caller to cancel.
    mutating func forget(_ client: ClientID) -> [(id: PromptID, prompt: PendingPrompt)] {
        guard counts.removeValue(forKey: client) != nil else { return [] }
        let gone = prompts.filter { $0.value.owner == client }.map { (id: $0.key, prompt: $0.value) }
        for entry in gone { prompts[entry.id] = nil }
        return gone
    }
}
