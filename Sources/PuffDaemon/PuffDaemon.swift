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
import PuffVersion
import ServiceLifecycle
import UnixSignals

/// `puffd`: the Secret Service provider. Owns `org.freedesktop.secrets` on the session bus.
public struct PuffDaemon: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "puffd",
        abstract: "Serve the freedesktop Secret Service (org.freedesktop.secrets) on the session bus.",
        version: PuffVersion.current
    )

    @Option(help: "Bus address to serve on (default: the session bus from DBUS_SESSION_BUS_ADDRESS).")
    var address: String?

    @Option(help: "Well-known name to own; tests use their own.")
    var busName: String = SecretServiceNames.busName.rawValue

    @Flag(help: "Take the name over from a provider that is already running.")
    var replace = false

    @Option(
        help: ArgumentHelp(
            "The configuration file (default: $XDG_CONFIG_HOME/puff/puffd.toml); options given here override it.",
            valueName: "path"))
    var config: String?

    @Flag(help: "Print the configuration in effect, as TOML, and exit.")
    var printConfig = false

    // The options below have no defaults of their own: nil means "not given", so the
    // configuration file's value (or the built-in default, DaemonConfiguration) applies.

    @Option(help: "Record store: \(PluginRegistry.recordStores.joined(separator: ", ")) (default: file).")
    var vault: String?

    @Option(help: "Vault folder for the file store (default: $XDG_DATA_HOME/puff).")
    var dataDir: String?

    @Flag(help: "Keep everything in memory under random keys, with an unlocked login collection and no passcode.")
    var ephemeral = false

    @Option(help: ArgumentHelp("Argon2id strength of new passcodes: moderate or interactive.", visibility: .hidden))
    var kdf: String?

    @Option(
        help: """
            Who is asked to unlock, in order; the first that can reach a person answers \
            (\(PluginRegistry.prompters.joined(separator: ", ")); default: agent,pinentry,none).
            """)
    var prompter: String?

    @Option(help: "The pinentry program for the pinentry prompter (default: \(PinentryPrompter.defaultProgram)).")
    var pinentry: String?

    @Option(
        help: ArgumentHelp(
            "The terminal a curses or tty pinentry draws on, such as /dev/pts/3, one no shell reads; pinentry is then used without a display.",
            valueName: "tty"))
    var pinentryTty: String?

    @Option(help: "Seconds after which an unanswered prompt is dismissed (default: 60).")
    var promptTimeout: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds a client may take to close a passcode pipe, --unlock-fd's included (default: 5); for tests on a busy machine.",
            visibility: .hidden))
    var passcodePipeTimeout: Int32?

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
        help: ArgumentHelp(
            "Keep unlocked collections' keys in the kernel keyring for SECONDS, so a restarted puffd comes back unlocked; 0: off (default).",
            valueName: "seconds"))
    var kernelKeyring: Int?

    @Option(
        help: ArgumentHelp(
            "The TPM of tpm2 slots, as tpm2-tss names it: device:PATH, or swtpm:path=SOCKET for a software TPM (default: device:/dev/tpmrm0).",
            valueName: "tcti"))
    var tpm2Device: String?

    @Option(
        help: ArgumentHelp(
            "The security key of fido2 slots: a device path such as /dev/hidraw3, or unix:PATH for a software authenticator's socket (default: the first key found).",
            valueName: "device"))
    var fido2Device: String?

    @Option(
        help: """
            The system bus, where logind says when to lock (sleep, session lock, logout) \
            (default: DBUS_SYSTEM_BUS_ADDRESS, else the standard socket).
            """)
    var systemBusAddress: String?

    @Option(
        help: ArgumentHelp(
            "Milliseconds between looks at this user's logind sessions while some are live (default: 5000).",
            visibility: .hidden))
    var sessionCheckMilliseconds: Int?

    @Option(
        help: ArgumentHelp(
            "Folder of the socket the PAM module hands login passwords to, or none (default: $XDG_RUNTIME_DIR/puff).",
            valueName: "folder"))
    var loginSocket: String?

    @Option(
        help: ArgumentHelp(
            "Read login's passcode from descriptor N at start and unlock it (create it on a vault without one).",
            valueName: "N"))
    var unlockFD: Int32?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: info).")
    var logLevel: String?

    @Flag(help: "Print the introspection XML of the Secret Service interfaces and exit.")
    var printIntrospection = false

    public init() {}

    public mutating func validate() throws {
        guard BusName(busName) != nil else { throw ValidationError("'\(busName)' is not a valid bus name") }
        if let vault, !PluginRegistry.recordStores.contains(vault) {
            throw ValidationError(
                "unknown vault '\(vault)'; choose one of: \(PluginRegistry.recordStores.joined(separator: ", "))")
        }
        if let kdf, !["moderate", "interactive"].contains(kdf) { throw ValidationError("unknown --kdf '\(kdf)'") }
        if let prompter, !PluginRegistry.isPrompterOrder(prompter) {
            throw ValidationError(
                "unknown prompter '\(prompter)'; choose one of: \(PluginRegistry.prompters.joined(separator: ", "))")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        if let pinentryTty, !pinentryTty.hasPrefix("/") {
            throw ValidationError("--pinentry-tty takes a terminal's path, such as /dev/pts/3")
        }
        if let tpm2Device {
            do throws(KeyReason) {
                _ = try ConfigurationKeys.tpmDevice(tpm2Device)
            } catch {
                throw ValidationError("--tpm2-device \(error.text)")
            }
        }
        if let fido2Device {
            do throws(KeyReason) {
                _ = try ConfigurationKeys.securityKeyDevice(fido2Device)
            } catch {
                throw ValidationError("--fido2-device \(error.text)")
            }
        }
        if let promptTimeout, promptTimeout <= 0 { throw ValidationError("--prompt-timeout must be positive") }
        if let passcodePipeTimeout, !(1...3600).contains(passcodePipeTimeout) {
            throw ValidationError("--passcode-pipe-timeout takes 1 to 3600 seconds")
        }
        guard (lockAfterIdle ?? 0) >= 0, (lockAfter ?? 0) >= 0, (kernelKeyring ?? 0) >= 0 else {
            throw ValidationError("--lock-after-idle and --lock-after take seconds, 0 or more")
        }
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
            logger: logger)
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
                ] + (login.map { [.init(service: $0)] } ?? []),
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
    private static func start(
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

    /// The folder of the login socket, unless there is none.
    private func loginSocketFolder(_ settings: DaemonConfiguration, environment: [String: String]) -> String? {
        guard loginSocket != "none", !settings.isEphemeral else { return nil }
        return loginSocket ?? environment["XDG_RUNTIME_DIR"].map { $0 + "/puff" }
    }

    /// Hands the passcode on `fd` to the puffd holding the vault (``LoginForward``).
    private func forwardUnlock(from fd: Int32, toSocketIn folder: String, logger: Logger) async {
        let read = await BlockingWork.result { () throws(LoginRequest.Failure) in
            try StartupUnlock.readPasscode(from: fd)
        }
        guard case .success(let passcode) = read, passcode.count > 0 else { return }
        let reply = await BlockingWork.run { LoginForward.send(passcode, toSocketIn: folder) }
        logger.notice(
            "Handed the passcode from --unlock-fd to the puffd that serves the vault",
            metadata: ["reply": "\(reply.map { String($0) } ?? "none")"])
    }

    /// The login socket's listener (docs/pam.md): on the socket systemd passed (`puff-login.socket`),
    /// else on one puffd makes, unless turned off or impossible; a socket that cannot be made is a
    /// warning, not a reason to stop.
    private func loginListener(
        _ settings: DaemonConfiguration, activation: SocketActivation.Outcome, environment: [String: String],
        service: SecretService, logger: Logger
    ) -> LoginListener? {
        guard !settings.isEphemeral else { return nil }
        switch activation {
        case .login(let fd, let path):
            logger.info("The login socket came from systemd (socket activation)", metadata: ["socket": "\(path)"])
            return LoginListener(socket: LoginSocket(adopting: fd, path: path), service: service, logger: logger)
        case .ignored(let why):
            logger.warning("Not taking the sockets passed at start: \(why)")
        case .none:
            break
        }
        guard let folder = loginSocketFolder(settings, environment: environment) else {
            guard loginSocket != "none" else { return nil }
            logger.info("No XDG_RUNTIME_DIR: no login socket, so the PAM module cannot unlock at login")
            return nil
        }
        do {
            return LoginListener(socket: try LoginSocket(folder: folder), service: service, logger: logger)
        } catch {
            logger.warning("No login socket: \(error)")
            return nil
        }
    }
}
