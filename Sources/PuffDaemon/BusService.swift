// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffServiceBus
import ServiceLifecycle
import Synchronization

/// The daemon's one long-running service: serves the Secret Service until a signal asks for a
/// graceful shutdown, the bus goes away or another provider takes the name.
struct BusService: Service {
    let bus: SecretServiceBus
    let connection: BusConnection
    let logger: Logger

    func run() async throws {
        let connection = self.connection
        let logger = self.logger
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
