// SPDX-License-Identifier: Apache-2.0
import PuffDBus

/// `import --bus --unlock-source`: asks the other provider to unlock its locked collections with
/// `Service.Unlock`; the provider shows its own prompt (gnome-keyring's password dialog) and
/// puffctl waits for the person's answer (`Prompt.Completed`). Without the option nothing here
/// runs, so the other provider shows nothing.
enum LivePrompt {
    static let promptInterface = SecretInterfaces.prompt
    /// How long a person has to answer the provider's prompt.
    static let answerTimeout: Duration = .seconds(600)

    /// Unlocks `collections` on `provider`; returns normally whether or not the person agreed
    /// (the caller reads `Locked` again).
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` for a malformed reply, a refusal, or no answer
    ///   within ``answerTimeout``.
    static func unlock(_ collections: [ObjectPath], on provider: String, bus: LiveBus) async throws(ClientError) {
        let reply = try await bus.call(
            "Unlock", on: LiveProviderSource.servicePath, interface: LiveProviderSource.serviceInterface,
            [.objectPaths(collections)], expecting: "aoo", provider: provider)
        let prompt = try reply[1].objectPath.orFail("Unlock's output has no prompt path")
        guard prompt != .root else { return }
        // Subscribed before the prompt starts, so its Completed cannot be missed.
        do {
            try await bus.connection.addMatch(
                .signal(
                    sender: BusName(provider), interface: promptInterface, member: "Completed", path: prompt))
        } catch {
            throw .liveSource("could not listen for the provider's prompt: \(error)")
        }
        _ = try await bus.call(
            "Prompt", on: prompt, interface: promptInterface, [.string("")], expecting: "", provider: provider)
        let answered = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await signal in bus.completions where signal.path == prompt && signal.sender == provider {
                    return true
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: answerTimeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard answered else {
            throw .liveSource("the provider's unlock prompt was not answered within \(answerTimeout)")
        }
    }
}
