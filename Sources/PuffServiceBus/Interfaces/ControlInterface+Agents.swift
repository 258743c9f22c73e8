// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// `RegisterAgent` and `UnregisterAgent` of `io.puff.Control1`: `puffctl agent` offers to answer
/// prompts in its terminal (dbus/io.puff.Agent1.xml).
///
/// The first agent keeps its place: while another connection's agent is registered, a new one is
/// registered only when the person says yes through the agent registered now, so a client cannot
/// make itself the one that confirms its own reads. Every registration, done or refused, is
/// audited in each unlocked collection.
extension SecretInterfaces {
    static func agentMethods(_ context: BusContext) -> [Method] {
        [
            controlMethod(.registerAgent, in: .objectPath("agent")) { call, path in
                guard let agents = context.agents else {
                    throw DBusError(.notSupported, "this puffd does not ask agents: start it with --prompter agent,...")
                }
                let caller = call.caller
                let who = caller.executable.map { "\($0) (\(call.context.sender))" } ?? call.context.sender
                let service = context.service
                if agents.hasAgent(otherThan: call.context.sender) {
                    do {
                        try await service.requireConsent(
                            .confirmation, in: CollectionID(""),
                            change: "let another agent, \(who), answer puffd's questions instead of this one",
                            caller: caller, through: agents)
                    } catch {
                        await service.auditEverywhere(
                            .registerAgent, label: who, caller: caller, result: SecretService.auditResult(of: error))
                        throw error
                    }
                }
                agents.register(owner: call.context.sender, path: path)
                await service.auditEverywhere(.registerAgent, label: who, caller: caller, result: .allowed)
                return []
            },
            controlMethod(.unregisterAgent, in: .objectPath("agent")) { call, path in
                guard let agents = context.agents, agents.unregister(owner: call.context.sender, path: path)
                else { throw DBusError(.invalidArgs, "no such agent of this connection") }
                return []
            },
        ]
    }
}
