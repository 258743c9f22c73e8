// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffDBus
public import PuffService

/// Serves a ``SecretService`` on a bus connection: routes calls, emits signals for service
/// events and closes the sessions and prompts of clients that leave the bus.
public struct SecretServiceBus: Sendable {
    private let connection: BusConnection
    private let service: SecretService
    private let router: Router
    private let logger: Logger

    /// The event sink to give ``SecretService`` so its events become signals on `connection`.
    /// Signals are queued synchronously, so those a call causes leave before its reply.
    public static func eventSink(for connection: BusConnection) -> @Sendable (ServiceEvent) -> Void {
        { event in
            for message in SignalEmitter.messages(for: event) { connection.send(message) }
        }
    }

    /// Wires `service` to `connection`; nothing is served until ``run()``.
    public init(connection: BusConnection, service: SecretService, logger: Logger) {
        self.connection = connection
        self.service = service
        self.logger = logger
        let context = BusContext(service: service)
        let tree = SecretTree(context: context, interfaces: SecretInterfaces(context: context))
        let mapping = DBusErrorMapping(logger: logger)
        router = Router(tree: tree, mapError: { mapping.map($0) })
    }

    /// Subscribes to `NameOwnerChanged`; call before requesting the well-known name so that no
    /// client can leave unnoticed.
    public func subscribe() async throws {
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
        )
    }

    /// Serves until the connection closes; `onNameLost` runs if another provider replaces us.
    public func run(onNameLost: @escaping @Sendable (String) -> Void = { _ in }) async {
        let service = self.service
        let logger = self.logger
        let server = ObjectServer(connection: connection, router: router) { signal in
            guard signal.interface == "org.freedesktop.DBus", signal.sender == "org.freedesktop.DBus" else { return }
            switch signal.member {
            case "NameOwnerChanged":
                // A unique name whose new owner is empty is a client that left the bus (§5.4).
                guard signal.arguments.count == 3, let name = signal.arguments[0].string, name.hasPrefix(":"),
                    signal.arguments[2].string == ""
                else { return }
                await service.clientVanished(ClientID(name))
            case "NameLost":
                if let name = signal.arguments.first?.string {
                    logger.warning("lost bus name", metadata: ["bus.name": "\(name)"])
                    onNameLost(name)
                }
            default:
                break
            }
        }
        await server.run()
    }
}
