// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

extension ControlClient {
    /// `RegisterAgent`: puffd asks the object at `path` on this connection from now on.
    public func registerAgent(at path: ObjectPath) async throws(ClientError) {
        _ = try await call(.registerAgent, [.objectPath(path)])
    }

    /// `UnregisterAgent`: withdraws an agent this connection registered.
    public func unregisterAgent(at path: ObjectPath) async throws(ClientError) {
        _ = try await call(.unregisterAgent, [.objectPath(path)])
    }

    /// Whether `sender` is the connection that owns ``busName`` now.
    func ownsControlName(_ sender: String) async -> Bool {
        guard let name = BusName(busName), let owner = try? await connection.nameOwner(of: name) else { return false }
        return owner == sender
    }

    /// Serves `agent` on this connection, registers it with puffd, calls `registered`, and serves
    /// until the connection ends. When puffd comes back after a restart (a new owner of
    /// ``busName``), the agent registers again and `registered` runs again.
    ///
    /// - Throws: ``ClientError`` when puffd refuses the agent (for example, no `agent` prompter).
    func serveAgent(_ agent: AgentService, registered: @escaping @Sendable (Bool) -> Void) async throws(ClientError) {
        let connection = self.connection
        let name = busName
        let router = Router(tree: agent) { error in DBusError(.failed, "\(error)") }
        do {
            try await connection.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(name)'")
        } catch {
            throw .failed(name: "", message: "\(error)")
        }
        let serving = Task {
            await ObjectServer(
                connection: connection, router: router, callers: CallerDirectory(connection: connection),
                onSignal: { [self] signal in
                    guard signal.sender == "org.freedesktop.DBus", signal.member == "NameOwnerChanged",
                        signal.arguments.count == 3, signal.arguments[0].string == name,
                        let owner = signal.arguments[2].string, !owner.isEmpty
                    else { return }
                    // Not awaited here: the reply comes through the loop this handler runs in.
                    Task {
                        if (try? await self.registerAgent(at: AgentService.path)) != nil { registered(true) }
                    }
                }
            ).run()
        }
        do {
            try await registerAgent(at: AgentService.path)
        } catch {
            serving.cancel()
            throw error
        }
        registered(false)
        await serving.value
    }
}
