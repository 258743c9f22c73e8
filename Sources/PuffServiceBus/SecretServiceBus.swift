// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffDBus
public import PuffService

/// Serves a ``SecretService`` on a bus connection: routes calls in per-client lanes, emits
/// signals for service events and closes the sessions and prompts of clients that leave the bus.
public struct SecretServiceBus: Sendable {
    private let connection: BusConnection
    private let service: SecretService
    private let router: Router
    private let callers: CallerDirectory
    private let limits: ObjectServer.Limits
    private let logger: Logger
    private let readers: PropertyReaders
    private let spellings: PromptSpellings
    private let fastReads: Bool
    private let portalRequests: PortalRequests

    /// Wires `service` to `connection` and `publisher` (the service's event sink); nothing is
    /// served until ``run()``. With `fastReads`, secret reads that need nothing but the
    /// service's ``ReadView`` are answered on the bus thread (``FastPath``).
    public init(
        connection: BusConnection, service: SecretService, publisher: SignalPublisher,
        limits: ObjectServer.Limits = ObjectServer.Limits(), fastReads: Bool = false, logger: Logger
    ) {
        self.fastReads = fastReads
        self.connection = connection
        self.service = service
        self.limits = limits
        self.logger = logger
        publisher.attach(service)
        readers = publisher.readers
        spellings = publisher.spellings
        let built = SecretRouter.make(
            service: service, readers: publisher.readers, spellings: publisher.spellings,
            portalOwner: { (try? await connection.nameOwner(of: PortalGuard.portalName)) ?? nil }, logger: logger)
        router = built.router
        portalRequests = built.portalRequests
        callers = CallerDirectory(connection: connection)
        connection.setDecodePolicy(built.decodePolicy)
    }

    /// Subscribes to `NameOwnerChanged`; call before requesting the well-known name so that no
    /// client can leave unnoticed.
    public func subscribe() async throws {
        try await BusNameWatch.subscribe(connection, callers: callers)
    }

    /// Serves until the connection closes; `onNameLost` runs if another provider replaces us.
    public func run(onNameLost: @escaping @Sendable (String) -> Void = { _ in }) async {
        let service = self.service
        let logger = self.logger
        let readers = self.readers
        let spellings = self.spellings
        let portalRequests = self.portalRequests
        let server = ObjectServer(
            connection: connection, router: router, callers: callers, limits: limits, logger: logger,
            onClientLeft: { name in
                readers.forget(name)
                spellings.forget(owner: name)
                portalRequests.ownerLeft(name)
                await service.clientVanished(ClientID(name))
            },
            onSignal: { signal in BusNameWatch.noticeNameLost(signal, logger: logger, onNameLost: onNameLost) },
            waitBefore: { message in if !Self.needsNoVault(message) { await service.vaultReady() } },
            fastPath: fastReads ? FastPath.handler(service.readView, readers: readers) : nil)
        await server.run()
    }

    /// `OpenSession` and `Session.Close` are answered while the vault loads (design §4); every
    /// other call waits for it in its lane (`Peer` and `Introspect` never reach a lane).
    static func needsNoVault(_ message: IncomingMessage) -> Bool {
        switch (message.interface, message.member) {
        case (SecretServiceNames.service.rawValue, "OpenSession"), (nil, "OpenSession"):
            message.path == SecretServiceNames.servicePath
        case (SecretServiceNames.session.rawValue, "Close"), (nil, "Close"):
            message.path?.rawValue.hasPrefix(SecretServiceNames.servicePath.rawValue + "/session/") == true
        default: false
        }
    }
}
