// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// `RegisterAgent` and `UnregisterAgent` of `io.puff.Control1`: `puffctl agent` offers to answer
/// prompts in its terminal (dbus/io.puff.Agent1.xml).
extension SecretInterfaces {
    static func agentMethods(_ context: BusContext) -> [Method] {
        [
            controlMethod("RegisterAgent", in: [.init("agent", "o")]) { call in
                guard let agents = context.agents else {
                    throw DBusError(.notSupported, "this puffd does not ask agents: start it with --prompter agent,...")
                }
                agents.register(owner: call.context.sender, path: try call.argument(0, \.objectPath))
                return []
            },
            controlMethod("UnregisterAgent", in: [.init("agent", "o")]) { call in
                guard let agents = context.agents,
                    agents.unregister(owner: call.context.sender, path: try call.argument(0, \.objectPath))
                else { throw DBusError(.invalidArgs, "no such agent of this connection") }
                return []
            },
        ]
    }
}
