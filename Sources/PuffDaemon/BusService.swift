// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffServiceBus
import ServiceLifecycle

/// The daemon's one long-running service: serves the Secret Service until a signal asks for a
/// graceful shutdown, the bus goes away or another provider takes the name.
struct BusService: Service {
    let bus: SecretServiceBus
    let connection: BusConnection
    let logger: Logger

    func run() async throws {
        let connection = self.connection
        await withGracefulShutdownHandler {
            await bus.run(onNameLost: { _ in connection.close() })
        } onGracefulShutdown: {
            // Closing flushes queued replies and signals, then ends the message stream.
            connection.close()
        }
        logger.info("stopped serving")
    }
}
