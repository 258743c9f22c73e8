// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffServiceBus
import ServiceLifecycle
import Synchronization

/// The daemon's one long-running service: serves the Secret Service and, on a connection of its
/// own, the control interface until a signal asks for a graceful shutdown, a bus connection goes
/// away or another provider takes a name.
struct BusService: Service, CustomStringConvertible {
    /// Another provider owns the name and `--replace` was not given.
    struct NameTaken: Error {}

    let bus: SecretServiceBus
    let connection: BusConnection
    let name: BusName
    /// `io.puff.Control1`, served apart so that a proxy rule for ``name`` does not reach it.
    let control: ControlBus
    let controlConnection: BusConnection
    let controlName: BusName
    let replace: Bool
    let logger: Logger
    /// Runs once both names are owned, beside the serving (puffd loads its vault there; calls
    /// wait for it in their lanes). Its error stops both connections and is this service's.
    var afterNames: @Sendable () async throws -> Void = {}

    /// What the service group logs about this service: its names, not its whole object graph.
    var description: String { "BusService(\(name), \(controlName))" }

    private enum Outcome: Sendable {
        case served
        case started((any Error)?)
    }

    func run() async throws {
        let connections = [connection, controlConnection]
        // The names are requested only now, inside the running service group, so its SIGTERM and
        // SIGINT handling is in place before any client (or systemd) can see us.
        for (bus, name) in [(connection, name), (controlConnection, controlName)] {
            switch try await bus.requestName(name, replace: replace) {
            case .primaryOwner, .alreadyOwner:
                logger.info("serving", metadata: ["bus.name": "\(name)", "bus.unique": "\(bus.uniqueName)"])
            case .exists, .inQueue:
                logger.critical(
                    "another provider already owns \(name); stop it first or start puffd with --replace")
                for each in connections { each.close() }
                throw NameTaken()
            }
        }
        let expected = Atomic<Bool>(false)
        let logger = self.logger
        let stop: @Sendable (String) -> Void = { name in
            expected.store(true, ordering: .relaxed)
            logger.notice("another provider took \(name) over (--replace); stopping")
            for each in connections { each.close() }
        }
        let startFailed: @Sendable () -> Void = {
            expected.store(true, ordering: .relaxed)
            for each in connections { each.close() }
        }
        let bus = self.bus
        let control = self.control
        let afterNames = self.afterNames
        let failure: (any Error)? = await withGracefulShutdownHandler {
            await withTaskGroup(of: Outcome.self) { group in
                // Either connection ending ends both: a puffd serving half of itself helps no one.
                group.addTask {
                    await bus.run(onNameLost: stop)
                    for each in connections { each.close() }
                    return .served
                }
                group.addTask {
                    await control.run(onNameLost: stop)
                    for each in connections { each.close() }
                    return .served
                }
                group.addTask {
                    do {
                        try await afterNames()
                        return .started(nil)
                    } catch {
                        startFailed()
                        return .started(error)
                    }
                }
                var serving = 2
                var failure: (any Error)?
                for await outcome in group {
                    switch outcome {
                    case .served:
                        serving -= 1
                        // Serving ended (a signal, the bus gone): a start-up still waiting (a
                        // passcode pipe) has nobody left to serve.
                        if serving == 0 { group.cancelAll() }
                    case .started(let error):
                        failure = error
                    }
                }
                return failure
            }
        } onGracefulShutdown: {
            expected.store(true, ordering: .relaxed)
            // Closing flushes queued replies and signals, then ends the message streams.
            for each in connections { each.close() }
        }
        if !expected.load(ordering: .relaxed) {
            logger.warning("a bus connection closed; stopping")
        }
        logger.info("stopped serving")
        if let failure { throw failure }
    }
}
