// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffServiceBus
import ServiceLifecycle
import Synchronization

/// The daemon's one long-running service: serves the Secret Service until a signal asks for a
/// graceful shutdown, the bus goes away or another provider takes the name.
struct BusService: Service, CustomStringConvertible {
    /// Another provider owns the name and `--replace` was not given.
    struct NameTaken: Error {}

    let bus: SecretServiceBus
    let connection: BusConnection
    let name: BusName
    let replace: Bool
    let logger: Logger

    /// What the service group logs about this service: its name, not its whole object graph.
    var description: String { "BusService(\(name))" }

    func run() async throws {
        let connection = self.connection
        let logger = self.logger
        // The name is requested only now, inside the running service group, so its SIGTERM and
        // SIGINT handling is in place before any client (or systemd) can see us.
        switch try await connection.requestName(name, replace: replace) {
        case .primaryOwner, .alreadyOwner:
            logger.info("serving", metadata: ["bus.name": "\(name)", "bus.unique": "\(connection.uniqueName)"])
        case .exists, .inQueue:
            logger.critical(
                "another Secret Service provider already owns \(name); stop it first or start puffd with --replace")
            connection.close()
            throw NameTaken()
        }
        let expected = Atomic<Bool>(false)
        await withGracefulShutdownHandler {
            await bus.run(onNameLost: { name in
                expected.store(true, ordering: .relaxed)
                logger.notice("another provider took \(name) over (--replace); stopping")
                connection.close()
            })
        } onGracefulShutdown: {
            expected.store(true, ordering: .relaxed)
            // Closing flushes queued replies and signals, then ends the message stream.
            connection.close()
        }
        if !expected.load(ordering: .relaxed) {
            logger.warning("the bus connection closed; stopping")
        }
        logger.info("stopped serving")
    }
}
