// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffDBus
import PuffProtocol
public import PuffService
public import PuffStore

/// Serves `io.puff.Control1` on a bus connection of its own, which owns `io.puff.Control` and
/// nothing else (dbus/io.puff.Control1.xml).
///
/// Objects belong to connections: a client that may talk only to `org.freedesktop.secrets`
/// (xdg-dbus-proxy's `--talk`) reaches the Secret Service connection, which serves no
/// `/io/puff/Control`, so it cannot reach the control interface at all.
public struct ControlBus: Sendable {
    /// The well-known name the control connection owns.
    public static let busName = ControlNames.busName

    private let connection: BusConnection
    private let service: SecretService
    private let router: Router
    private let callers: CallerDirectory
    private let limits: ObjectServer.Limits
    private let agents: AgentPrompter?
    private let logger: Logger
    private let departures = CallerDepartures()

    /// Wires the control interface of `service` to `connection`; nothing is served until ``run()``.
    /// `checkStore` answers `CheckStore` (doctor's look at the shared store of fleet collections).
    public init(
        connection: BusConnection, service: SecretService, limits: ObjectServer.Limits = ObjectServer.Limits(),
        agents: AgentPrompter? = nil, checkStore: @escaping @Sendable () async -> [StoreCheck] = { [] },
        logger: Logger
    ) {
        self.connection = connection
        self.service = service
        self.limits = limits
        self.agents = agents
        self.logger = logger
        let built = Self.router(
            BusContext(
                service: service, agents: agents, send: { connection.send($0) }, departures: departures,
                checkStore: checkStore),
            logger: logger)
        router = built.router
        callers = CallerDirectory(connection: connection)
        connection.setDecodePolicy(built.decodePolicy)
    }

    /// The control object's router and how the bus thread decodes calls for it, from `context`
    /// alone: tests hand it messages with no bus, as ``SecretRouter`` does.
    static func router(_ context: BusContext, logger: Logger) -> SecretRouter.Built {
        let control = SecretInterfaces.control(context)
        let mapping = DBusErrorMapping(logger: logger)
        let router = Router(tree: ControlTree(control: control), mapError: { mapping.map($0) })
        return SecretRouter.Built(
            router: router,
            decodePolicy: DecodePolicy(secretFields: [:], methodSignatures: router.methodSignatures(serving: [control]))
        )
    }

    /// Subscribes to `NameOwnerChanged`; call before requesting the name so that no agent can
    /// leave unnoticed.
    public func subscribe() async throws {
        try await BusNameWatch.subscribe(connection, callers: callers)
    }

    /// Serves until the connection closes; `onNameLost` runs if another puffd replaces us.
    public func run(onNameLost: @escaping @Sendable (String) -> Void = { _ in }) async {
        let agents = self.agents
        let logger = self.logger
        let departures = self.departures
        let service = self.service
        let server = ObjectServer(
            connection: connection, router: router, callers: callers, limits: limits, logger: logger,
            onClientLeft: { name in agents?.clientLeft(name) },
            onSignal: { signal in
                departures.notice(signal)
                BusNameWatch.noticeNameLost(signal, logger: logger, onNameLost: onNameLost)
            },
            waitBefore: { _ in await service.vaultReady() })
        await server.run()
    }
}

/// The control connection's only object, `/io/puff/Control`, and the nodes above it.
struct ControlTree: ObjectTree {
    let control: Interface

    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
        guard path == ControlNames.path else { return nil }
        return ResolvedObject(interfaces: [control], object: SecretObject.control)
    }

    func children(of path: ObjectPath, context: CallContext) async -> [String] {
        // Each node above the control object has the next element of its path as its only child.
        let target = ControlNames.path.rawValue
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        guard target.hasPrefix(prefix), target.count > prefix.count else { return [] }
        return [String(target.dropFirst(prefix.count).prefix { $0 != "/" })]
    }
}
