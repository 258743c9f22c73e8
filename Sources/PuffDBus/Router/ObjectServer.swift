// SPDX-License-Identifier: Apache-2.0

/// Serves a ``Router`` on a ``BusConnection``: answers method calls in arrival order and hands
/// every signal to `onSignal`.
///
/// Calls are handled one after another, so a client's replies and the signals they cause leave in
/// the order it sent its calls. A handler must therefore never wait for a person: prompts return a
/// path at once and finish in tasks of their own.
public struct ObjectServer: Sendable {
    private let connection: BusConnection
    private let router: Router
    private let onSignal: @Sendable (IncomingMessage) async -> Void

    /// Creates a server; nothing runs until ``run()``.
    public init(
        connection: BusConnection, router: Router, onSignal: @escaping @Sendable (IncomingMessage) async -> Void
    ) {
        self.connection = connection
        self.router = router
        self.onSignal = onSignal
    }

    /// Serves until the connection closes.
    public func run() async {
        for await message in connection.messages {
            switch message.kind {
            case .methodCall:
                if let reply = await router.handle(message) { connection.send(reply) }
            case .signal:
                await onSignal(message)
            case .methodReturn, .error:
                break  // replies to our own calls are routed by the connection
            }
        }
    }
}
