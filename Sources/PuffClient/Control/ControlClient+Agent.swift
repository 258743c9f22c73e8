// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

extension ControlClient {
    /// `RegisterAgent`: puffd asks the object at `path` on this connection from now on.
    public func registerAgent(at path: ObjectPath) async throws(ClientError) {
        _ = try await call("RegisterAgent", [.objectPath(path)], expecting: "")
    }

    /// `UnregisterAgent`: withdraws an agent this connection registered.
    public func unregisterAgent(at path: ObjectPath) async throws(ClientError) {
        _ = try await call("UnregisterAgent", [.objectPath(path)], expecting: "")
    }

    /// Serves `agent` on this connection, registers it with puffd, calls `registered`, and serves
    /// until the connection ends.
    ///
    /// - Throws: ``ClientError`` when puffd refuses the agent (for example, no `agent` prompter).
    func serveAgent(_ agent: AgentService, registered: () -> Void) async throws(ClientError) {
        let connection = self.connection
        let router = Router(tree: agent) { error in DBusError(.failed, "\(error)") }
        let serving = Task {
            await ObjectServer(connection: connection, router: router, callers: CallerDirectory(connection: connection))
                .run()
        }
        do {
            try await registerAgent(at: AgentService.path)
        } catch {
            serving.cancel()
            throw error
        }
        registered()
        await serving.value
    }
}
