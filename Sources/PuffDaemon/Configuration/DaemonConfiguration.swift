// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffHardware
import PuffPrompters
public import PuffService
import PuffServiceBus
import PuffStore

/// What `puffd` runs with: the built-in defaults, overridden by `puffd.toml`
/// (``ConfigurationFile``), overridden by the command line. `docs/configuration.md` lists every
/// key; ``ConfigurationKeys`` is the one table that reads and prints them.
public struct DaemonConfiguration: Sendable, Equatable {
    // [vault]
    /// The record store plugin: `file` or `memory` (``PluginRegistry/recordStores``).
    public var store = FileRecordStore.kind
    /// `persistent` or `ephemeral` (``VaultModeName``); nil: the store's default
    /// (``effectiveMode``).
    public var mode: String?
    /// The file store's folder; nil: `$XDG_DATA_HOME/puff`, see ``effectiveDataDir(environment:)``.
    public var dataDir: String?
    /// Argon2id strength of new passcodes: `moderate` or `interactive`.
    public var kdf = "moderate"
    /// Days a deleted collection is kept sealed, restorable, before puffd purges it at start.
    public var keepDeletedDays = 7
    /// `[backup] keep`: automatic snapshots kept in the vault's `snapshots/` folder.
    public var backupKeep = 3

    // [store.openbao]
    /// Where fleet collections are kept (docs/design/fleet.md).
    public var openBao = OpenBaoSettings()

    // [prompts]
    /// Who is asked to unlock, in order (``PluginRegistry/prompters``).
    public var prompterOrder = [AgentPrompter.kind, PinentryPrompter.kind, DismissingPrompter.kind]
    /// Seconds after which an unanswered prompt is dismissed.
    public var promptTimeout = 60
    /// The pinentry program.
    public var pinentry = PinentryPrompter.defaultProgram
    /// The terminal a curses or tty pinentry draws on (Assuan `OPTION ttyname`); nil: none.
    public var pinentryTTY: String?

    /// Seconds the kernel keyring keeps unlocked collections' keys for a restarted puffd; nil or
    /// 0: not kept (docs/pam.md).
    public var kernelKeyring: Int?

    // [unlock]
    /// The TPM of tpm2 slots, as a tpm2-tss TCTI: `device:/dev/tpmrm0` (the kernel's resource manager),
    /// or `swtpm:path=SOCKET` for a software TPM (tests).
    public var tpm2Device = TPM2Sealer.defaultDevice
    /// The FIDO2 security key of fido2 slots: a libfido2 device path (`/dev/hidraw3`) or `unix:PATH`
    /// (a software authenticator on a socket, for tests); nil: the first key libfido2 finds.
    public var fido2Device: String?

    // [auto_lock]
    /// Seconds without a secret read or written before a collection locks, 0 never; nil: the
    /// store's default (``effectiveAutoLock``).
    public var lockAfterIdle: Int?
    /// Seconds after an unlock before a collection locks however busy, 0 never; nil: the default.
    public var lockAfter: Int?

    // [items]
    /// The active schema mappers, in order (``PluginRegistry/schemaMappers``); default all.
    public var mappers = PluginRegistry.schemaMappers
    /// Whether an internet password is unique per server, user, protocol and port.
    public var uniqueInternet = false
    // [access]
    /// Who reads secrets: `open`, `ask` or `strict` (``AccessMode``).
    public var accessMode = AccessMode.open.rawValue
    /// Whether access rules are bound to the executable's contents as well as its path.
    public var hashExecutables = false

    /// The access gate's settings.
    public var access: AccessConfiguration {
        AccessConfiguration(mode: AccessMode(rawValue: accessMode) ?? .open, hashesExecutables: hashExecutables)
    }

    // [sessions]
    /// Whether clients may open `plain` sessions, whose secrets travel unencrypted on the bus and
    /// stay in libdbus's message buffers after they were sent.
    public var allowPlainSessions = true
    /// Whether secret reads that need no decision are answered on the bus thread (design
    /// core-reshaped §7) instead of in the caller's lane.
    public var fastReads = true

    // [limits]
    /// What one client may make the service hold (docs/limits.md).
    public var limits = ServiceLimits()
    /// Calls of different connections that run at the same time (``ObjectServer/Limits``).
    public var concurrentCalls = ObjectServer.Limits().concurrentCalls
    /// Calls one connection may have waiting.
    public var queuedCallsPerClient = ObjectServer.Limits().queuedCallsPerClient

    // [audit]
    /// Whether each collection keeps an audit log of secret reads and item changes.
    public var auditEnabled = true
    /// The size past which a collection's audit log rotates; a log takes at most about twice it.
    public var auditMaxBytes = 1 << 20

    // [log]
    /// The swift-log level name.
    public var logLevel = "info"

    /// The defaults.
    public init() {}

    /// The vault mode: ``mode`` when set, else the store's default (`ephemeral` for `memory`,
    /// `persistent` for `file`).
    public var effectiveMode: VaultModeName {
        mode.flatMap(VaultModeName.init(rawValue:)) ?? RecordStoreFactory.named(store)?.modes.first ?? .persistent
    }

    /// Whether collections live under keys kept only in memory, with no passcode (`--ephemeral`,
    /// the `memory` store's default).
    public var isEphemeral: Bool { effectiveMode == .ephemeral }

    /// What is wrong with the store and mode together, for a person; nil when they go together.
    public var combinationProblem: String? {
        guard let factory = RecordStoreFactory.named(store), !factory.modes.contains(effectiveMode) else { return nil }
        return "the \(store) store cannot hold an \(effectiveMode.rawValue) vault: its collection keys would live "
            + "only in puffd's memory, so what it wrote would not open after a restart; use store = "
            + "\"\(RecordStoreFactory.memory.name)\" (or --ephemeral)"
    }

    /// The auto-lock defaults of this store. An ephemeral vault has no passcode to protect it
    /// (its key stays in memory to reopen it), so it locks on a timer only when asked to: a CI
    /// job relying on it must not find it locked after a quiet quarter of an hour.
    private var defaultAutoLock: AutoLockSettings { isEphemeral ? .never : .standard }

    /// Idle seconds before a lock, defaults resolved (0: never).
    public var effectiveLockAfterIdle: Int {
        lockAfterIdle ?? defaultAutoLock.idle.map { Int($0.components.seconds) } ?? 0
    }

    /// Seconds after an unlock before a lock, defaults resolved (0: never).
    public var effectiveLockAfter: Int {
        lockAfter ?? defaultAutoLock.maximum.map { Int($0.components.seconds) } ?? 0
    }

    /// When collections lock by themselves.
    public var effectiveAutoLock: AutoLockSettings {
        AutoLockSettings(idleSeconds: effectiveLockAfterIdle, maximumSeconds: effectiveLockAfter)
    }

    /// The item rules ``mappers`` and ``uniqueInternet`` make; the names were checked when read.
    public var itemRules: ItemRules {
        ItemRules(mappers: SchemaMappers(named: mappers) ?? .standard, uniqueInternet: uniqueInternet)
    }

    /// The bus binding's limits.
    public var busLimits: ObjectServer.Limits {
        ObjectServer.Limits(concurrentCalls: concurrentCalls, queuedCallsPerClient: queuedCallsPerClient)
    }

    /// The vault folder: ``dataDir``, else `$XDG_DATA_HOME/puff` (when absolute, as the XDG
    /// specification asks), else `$HOME/.local/share/puff`.
    public func effectiveDataDir(environment: [String: String]) -> String {
        if let dataDir { return dataDir }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/puff" }
        return (environment["HOME"] ?? "/tmp") + "/.local/share/puff"
    }
}
