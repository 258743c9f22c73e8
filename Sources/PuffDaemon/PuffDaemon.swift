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
}
