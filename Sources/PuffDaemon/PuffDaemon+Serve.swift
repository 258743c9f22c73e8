// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffServiceBus
import PuffStore
import ServiceLifecycle
import UnixSignals

/// The daemon's run: configuration, bus connections, the service, its names, and a clean stop.
extension PuffDaemon {
    /// Runs the daemon. A separate name from `run()` so that callers outside an
    /// `@main` type reach this async body rather than ParsableCommand's synchronous default.
    public func serve() async throws {
        // Before the environment is read: the LISTEN_* variables are removed from it.
        let activation = SocketActivation.takeLoginSocket()
        let environment = Self.environment()
        let settings: DaemonConfiguration
        let source: ConfigurationPrinter.Source
        do {
            (settings, source) = try effectiveConfiguration(environment: environment)
        } catch {
            // Before logging is set up (the file names the level): one line, as compilers print.
            let line = "puffd: \(error)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            throw ExitCode(2)
        }
        if printConfig {
            print(ConfigurationPrinter.render(settings, source: source, environment: environment), terminator: "")
            return
        }
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info  // checked by validate() and the file
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "puffd")
        if case .file(let path) = source { logger.info("Configuration read from \(path)") }
        ProcessHardening.apply(logger: logger)
        if printIntrospection {
            // Nothing but the XML may reach the output: it is compared byte for byte.
            let quiet = Logger(label: "puffd", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try await makeService(settings, environment: environment, logger: quiet, events: { _ in })
            print(SecretInterfaces.referenceDocument(for: service), terminator: "")
            return
        }

        let connection: BusConnection
        let controlConnection: BusConnection
        do {
            connection = try await BusConnection.connect(address: address)
            controlConnection = try await BusConnection.connect(address: address)
        } catch {
            logger.critical(
                "cannot connect to the bus: \(error). Is DBUS_SESSION_BUS_ADDRESS set? (`make run` starts a bus for you)"
            )
            throw ExitCode(2)
        }
        if let passcodePipeTimeout { SecretServiceBus.setPasscodePipeTimeout(seconds: passcodePipeTimeout) }
        let publisher = SignalPublisher(connection: connection)
        let agents = AgentPrompter(connection: controlConnection)
        // The vault is only locked here; it is read once the names are owned (design §4), while
        // calls wait in their lanes: the router and decode policy are made first, below.
        connection.holdMethodCalls()
        controlConnection.holdMethodCalls()
        let service: SecretService
        do {
            service = try await makeService(
                settings, environment: environment, logger: logger, events: publisher.sink, agents: agents,
                loading: .later)
        } catch let held as VaultHolderWait.Held {
            let wait = VaultHolderWait(connection: connection, name: BusName(busName)!, logger: logger)
            let folder = settings.effectiveDataDir(environment: environment)
            switch await wait.run(lockIsFree: { (try? FileRecordStore(folder: folder)) != nil }) {
            case .served(let owner):
                logger.notice("Another puffd serves \(busName) on this vault; exiting", metadata: ["owner": "\(owner)"])
                if let unlockFD, let folder = loginSocketFolder(settings, environment: environment) {
                    await forwardUnlock(from: unlockFD, toSocketIn: folder, logger: logger)
                }
                connection.close()
                return
            case .lockFree:
                service = try await makeService(
                    settings, environment: environment, logger: logger, events: publisher.sink, agents: agents,
                    loading: .later)
            case .gaveUp:
                logger.critical("cannot open the vault: vault busy: \(held.why), and nobody took \(busName)")
                throw ExitCode(2)
            }
        }
        let bus = SecretServiceBus(
            connection: connection, service: service, publisher: publisher, limits: settings.busLimits,
            fastReads: settings.fastReads, logger: logger)
        let control = ControlBus(
            connection: controlConnection, service: service, limits: settings.busLimits, agents: agents,
            checkStore: Self.storeCheck(settings.openBao, environment: environment, service: service), logger: logger)
        try await bus.subscribe()
        try await control.subscribe()
        // Trapped before the name is taken: SIGUSR1's default action would end the daemon.
        let lockSignals = await UnixSignalsSequence(trapping: .sigusr1)
        let logind = LogindWatcher(
            address: systemBusAddress ?? BusConnection.systemBusAddress(environment: environment),
            userID: getuid(),
            lock: { reason in if await service.vaultReady() { await service.lockAll(reason: reason) } },
            logger: logger,
            closingCheck: sessionCheckMilliseconds.map { .milliseconds(max(10, $0)) }
                ?? LogindWatcher.defaultClosingCheck)

        let login = loginListener(
            settings, activation: activation, environment: environment, service: service, logger: logger)

        // The bus service ending on its own (bus gone, name taken over) is a normal way to stop,
        // not a failure to report with a stack of service details.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(
                        service: BusService(
                            bus: bus, connection: connection, name: BusName(busName)!,  // checked in validate()
                            control: control, controlConnection: controlConnection, controlName: ControlBus.busName,
                            replace: replace, logger: logger,
                            afterNames: { [unlockFD, passcodePipeTimeout] in
                                try await Self.start(
                                    service, settings: settings, environment: environment, unlockFD: unlockFD,
                                    passcodePipeTimeout: passcodePipeTimeout, logger: logger)
                            }),
                        successTerminationBehavior: .gracefullyShutdownGroup
                    ),
                    .init(service: LockSignalService(signals: lockSignals, service: service)),
                    // Without a system bus or logind the watcher ends at once; the daemon goes on.
                    .init(service: logind, successTerminationBehavior: .ignore),
                ] + (login.map { [.init(service: $0)] } ?? [])
                    // Fleet collections are pulled on a poll; without OpenBao configured nothing wakes for it.
                    + (service.sharesCollections
                        ? [
                            .init(
                                service: SharedPoll(service: service, interval: .seconds(settings.openBao.pollInterval))
                            )
                        ] : []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch is BusService.NameTaken {
            await service.flushAudit()
            throw ExitCode(1)
        }
        // Entries of the last second are otherwise synced by a timer that may not fire now.
        await service.flushAudit()
        // The next start then reads each journal's index snapshot instead of the whole journal.
        await service.saveIndexSnapshots()
    }

    /// What runs once the names are owned: the vault is read, then the start-up unlocks
    /// (credentials, `--unlock-fd`, hardware slots) before any waiting call goes on, so a client
    /// sees what it saw when the names were taken only after these.
    static func start(
        _ service: SecretService, settings: DaemonConfiguration, environment: [String: String], unlockFD: Int32?,
        passcodePipeTimeout: Int32?, logger: Logger
    ) async throws {
        try await service.loadVault()
        await noteUninitialized(service, logger: logger)
        if !settings.isEphemeral {
            if let directory = environment["CREDENTIALS_DIRECTORY"] {
                await CredentialUnlock.run(directory: directory, service: service, logger: logger)
            }
            if let unlockFD {
                let within = passcodePipeTimeout.map { $0 * 1000 } ?? StartupUnlock.readMilliseconds
                await StartupUnlock.run(fd: unlockFD, within: within, service: service, logger: logger)
            }
            await HardwareUnlock.run(service: service, logger: logger)
        }
        await service.becomeReady()
    }
}
