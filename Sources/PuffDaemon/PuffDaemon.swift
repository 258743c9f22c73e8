// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser
import Glibc
import Logging
import PuffCrypto
import PuffDBus
import PuffPrompters
import PuffService
import PuffServiceBus
import PuffStore
import ServiceLifecycle
import UnixSignals

/// `puffd`: the Secret Service provider. Owns `org.freedesktop.secrets` on the session bus.
public struct PuffDaemon: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "puffd",
        abstract: "Serve the freedesktop Secret Service (org.freedesktop.secrets) on the session bus."
    )

    @Option(help: "Bus address to serve on (default: the session bus from DBUS_SESSION_BUS_ADDRESS).")
    var address: String?

    @Option(help: "Well-known name to own; tests use their own.")
    var busName: String = SecretServiceNames.busName.rawValue

    @Flag(help: "Take the name over from a provider that is already running.")
    var replace = false

    @Option(help: "Record store: \(PluginRegistry.recordStores.joined(separator: ", ")).")
    var vault: String = FileRecordStore.kind

    @Option(help: "Vault folder for the file store (default: $XDG_DATA_HOME/puff).")
    var dataDir: String?

    @Flag(help: "Keep everything in memory under random keys, with an unlocked login collection and no passcode.")
    var ephemeral = false

    @Option(help: ArgumentHelp("Argon2id strength of new passcodes: moderate or interactive.", visibility: .hidden))
    var kdf: String = "moderate"

    @Option(
        help: """
            Who is asked to unlock, in order; the first that can reach a person answers \
            (\(PluginRegistry.prompters.joined(separator: ", "))).
            """)
    var prompter: String = "agent,pinentry,none"

    @Option(help: "The pinentry program for the pinentry prompter.")
    var pinentry: String = PinentryPrompter.defaultProgram

    @Option(help: "Seconds after which an unanswered prompt is dismissed.")
    var promptTimeout: Int = 60

    @Option(
        help: ArgumentHelp(
            "Lock a collection after SECONDS with no secret read or written in it; 0: never (default: 900, never with --ephemeral).",
            valueName: "seconds"))
    var lockAfterIdle: Int?

    @Option(
        help: ArgumentHelp(
            "Lock a collection SECONDS after its unlock, however busy; 0: never (default: 28800, never with --ephemeral).",
            valueName: "seconds"))
    var lockAfter: Int?

    @Option(
        help: """
            The system bus, where logind says when to lock (sleep, session lock, logout) \
            (default: DBUS_SYSTEM_BUS_ADDRESS, else the standard socket).
            """)
    var systemBusAddress: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Flag(help: "Print the introspection XML of the Secret Service interfaces and exit.")
    var printIntrospection = false

    public init() {}

    public mutating func validate() throws {
        guard BusName(busName) != nil else { throw ValidationError("'\(busName)' is not a valid bus name") }
        guard PluginRegistry.recordStores.contains(vault) else {
            throw ValidationError(
                "unknown vault '\(vault)'; choose one of: \(PluginRegistry.recordStores.joined(separator: ", "))")
        }
        guard ["moderate", "interactive"].contains(kdf) else { throw ValidationError("unknown --kdf '\(kdf)'") }
        guard PluginRegistry.isPrompterOrder(prompter) else {
            throw ValidationError(
                "unknown prompter '\(prompter)'; choose one of: \(PluginRegistry.prompters.joined(separator: ", "))")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        guard promptTimeout > 0 else { throw ValidationError("--prompt-timeout must be positive") }
        guard (lockAfterIdle ?? 0) >= 0, (lockAfter ?? 0) >= 0 else {
            throw ValidationError("--lock-after-idle and --lock-after take seconds, 0 or more")
        }
    }

    /// When collections lock by themselves. An ephemeral vault has no passcode to protect it
    /// (its key stays in memory to reopen it), so it locks on a timer only when asked to: a CI
    /// job relying on it must not find it locked after a quiet quarter of an hour.
    var autoLockSettings: AutoLockSettings {
        let defaults: AutoLockSettings = ephemeral || vault == MemoryRecordStore.kind ? .never : .standard
        return AutoLockSettings(
            idle: lockAfterIdle.map { $0 > 0 ? .seconds($0) : nil } ?? defaults.idle,
            maximum: lockAfter.map { $0 > 0 ? .seconds($0) : nil } ?? defaults.maximum)
    }

    /// The daemon's environment, from `environ`.
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    public func run() async throws {
        try await serve()
    }

    /// Runs the daemon. A separate name from `run()` so that callers outside an
    /// `@main` type reach this async body rather than ParsableCommand's synchronous default.
    public func serve() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info  // checked in validate()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "puffd")
        ProcessHardening.apply(logger: logger)
        if printIntrospection {
            // Nothing but the XML may reach the output: it is compared byte for byte.
            let quiet = Logger(label: "puffd", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try await makeService(logger: quiet, events: { _ in })
            print(SecretInterfaces.referenceDocument(for: service), terminator: "")
            return
        }

        let connection: BusConnection
        do {
            connection = try await BusConnection.connect(address: address)
        } catch {
            logger.critical(
                "cannot connect to the bus: \(error). Is DBUS_SESSION_BUS_ADDRESS set? (`make run` starts a bus for you)"
            )
            throw ExitCode(2)
        }
        let publisher = SignalPublisher(connection: connection)
        let agents = AgentPrompter(connection: connection)
        let service = try await makeService(logger: logger, events: publisher.sink, agents: agents)
        let bus = SecretServiceBus(
            connection: connection, service: service, publisher: publisher, agents: agents, logger: logger)
        try await bus.subscribe()
        // Trapped before the name is taken: SIGUSR1's default action would end the daemon.
        let lockSignals = await UnixSignalsSequence(trapping: .sigusr1)
        let logind = LogindWatcher(
            address: systemBusAddress ?? BusConnection.systemBusAddress(environment: Self.environment()),
            userID: getuid(), lock: { await service.lockAll(reason: $0) }, logger: logger)

        // The bus service ending on its own (bus gone, name taken over) is a normal way to stop,
        // not a failure to report with a stack of service details.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(
                        service: BusService(
                            bus: bus, connection: connection, name: BusName(busName)!,  // checked in validate()
                            replace: replace, logger: logger),
                        successTerminationBehavior: .gracefullyShutdownGroup
                    ),
                    .init(service: LockSignalService(signals: lockSignals, service: service)),
                    // Without a system bus or logind the watcher ends at once; the daemon goes on.
                    .init(service: logind, successTerminationBehavior: .ignore),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch is BusService.NameTaken {
            throw ExitCode(1)
        }
    }

    private func makeService(
        logger: Logger, events: @escaping @Sendable (ServiceEvent) -> Void, agents: AgentPrompter? = nil
    ) async throws -> SecretService {
        // validate() has checked every name, so these lookups cannot fail.
        let settings = PluginRegistry.PrompterSettings(
            pinentry: pinentry, environment: Self.environment(), agents: agents)
        let prompter = PluginRegistry.prompterChain(self.prompter, settings: settings, logger: logger)!
        let store: any RecordStore
        let mode: VaultMode
        if ephemeral || vault == MemoryRecordStore.kind || printIntrospection {
            store = MemoryRecordStore()
            mode = .ephemeral
        } else {
            let folder = dataDir ?? Self.defaultDataDir()
            do {
                store = try FileRecordStore(folder: folder)
            } catch {
                logger.critical("cannot open the vault: \(error)")
                throw ExitCode(2)
            }
            mode = .persistent(kdf: kdf == "interactive" ? .interactive : .moderate)
        }
        let service = try await SecretService(
            store: store,
            mode: mode,
            prompter: prompter,
            promptTimeout: .seconds(promptTimeout),
            autoLock: autoLockSettings,
            now: { UInt64(max(0, time(nil))) },
            logger: logger,
            events: events
        )
        if await !service.isInitialized {
            logger.notice("No passcode set yet: run `puffctl init` to create the login collection")
        }
        return service
    }

    /// `$XDG_DATA_HOME/puff`, or `~/.local/share/puff`.
    static func defaultDataDir() -> String {
        if let data = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), data.hasPrefix("/") {
            return data + "/puff"
        }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
        return home + "/.local/share/puff"
    }
}
