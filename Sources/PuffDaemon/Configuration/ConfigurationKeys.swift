// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffService

/// Every key `puffd.toml` takes, in the order `--print-config` prints them. docs/configuration.md
/// describes each; a key added here must be added there.
enum ConfigurationKeys {
    /// The tables, in print order.
    static let sections = [
        "vault", "store.openbao", "prompts", "unlock", "auto_lock", "items", "access", "sessions", "limits", "audit",
        "backup", "log",
    ]

    /// The most seconds a prompt may wait: nothing waits forever (architecture.md Part A item 5).
    static let longestPromptTimeout = 86_400
    /// The longest auto-lock delay, a year: longer is "never", which 0 says.
    static let longestAutoLock = 366 * 86_400

    /// Every key (printed in the order of ``sections``).
    static var all: [ConfigurationKey] {
        [
            .choice("vault", "store", \.store, choices: PluginRegistry.recordStores, noun: "store"),
            vaultMode,
            .path("vault", "data_dir", \.dataDir) { $0.effectiveDataDir(environment: $1) },
            .choice("vault", "kdf", \.kdf, choices: ["moderate", "interactive"], noun: "kdf strength"),
            .seconds("vault", "kernel_keyring", \.kernelKeyring, range: 0...longestAutoLock) {
                $0.isEphemeral ? 0 : $0.kernelKeyring ?? 0
            },
            .number("vault", "keep_deleted_days", \.keepDeletedDays, range: 0...3650),

            prompterOrder,
            .seconds("prompts", "timeout", \.promptTimeoutSetting, range: 1...longestPromptTimeout) {
                $0.promptTimeout
            },
            pinentry,
            .path("prompts", "pinentry_tty", \.pinentryTTY),

            tpm2Device,
            fido2Device,

            .seconds("auto_lock", "idle", \.lockAfterIdle, range: 0...longestAutoLock) { $0.effectiveLockAfterIdle },
            .seconds("auto_lock", "maximum", \.lockAfter, range: 0...longestAutoLock) { $0.effectiveLockAfter },

            mappers,
            .flag("items", "unique_internet", \.uniqueInternet),
            .choice("access", "mode", \.accessMode, choices: AccessMode.allCases.map(\.rawValue), noun: "access mode"),
            hashExecutables,
            .flag("sessions", "allow_plain", \.allowPlainSessions),
            .flag("sessions", "fast_reads", \.fastReads),

            // Upper bounds keep a value inside what the bus carries (a message holds at most
            // 4 MiB, DecodePolicy) or what locked memory holds; docs/limits.md says why each
            // default is what it is.
            .limit("label_bytes", \.limits.labelBytes, range: 1...1_048_576),
            .limit("attributes_per_item", \.limits.attributesPerItem, range: 1...65_536),
            .limit("attribute_bytes_per_item", \.limits.attributeBytesPerItem, range: 1...2_097_152),
            .limit("secret_bytes", \.limits.secretBytes, range: 1...2_097_152),
            .limit("sessions_per_client", \.limits.sessionsPerClient, range: 1...65_536),
            .limit("sessions", \.limits.sessions, range: 1...65_536),
            .limit("prompts_per_client", \.limits.promptsPerClient, range: 1...65_536),
            .limit("prompts", \.limits.prompts, range: 1...65_536),
            .limit("items_per_collection", \.limits.itemsPerCollection, range: 1...100_000_000),
            // `session` is one of them, and the login collection another.
            .limit("collections", \.limits.collections, range: 2...65_536),
            .limit("concurrent_calls", \.concurrentCalls, range: 1...256),
            .limit("queued_calls_per_client", \.queuedCallsPerClient, range: 1...1_000_000),

            .flag("audit", "enabled", \.auditEnabled),
            // At least a few entries per file; at most 1 GiB, so two files stay readable at once.
            .number("audit", "max_bytes", \.auditMaxBytes, range: 4096...1 << 30),
            .number("backup", "keep", \.backupKeep, range: 0...1000),

            .choice("log", "level", \.logLevel, choices: Logger.Level.allCases.map(\.rawValue), noun: "log level"),
        ] + openBaoKeys
    }

    /// The keys of `section`, in print order.
    static func keys(in section: String) -> [ConfigurationKey] { all.filter { $0.section == section } }

    /// `prompts.order`: a non-empty array of prompter names, each at most once.
    private static var prompterOrder: ConfigurationKey {
        ConfigurationKey(
            section: "prompts", name: "order",
            read: { value, configuration throws(KeyReason) in
                let example = #"such as ["agent", "pinentry", "none"]"#
                guard let array = value.array else {
                    throw KeyReason(
                        "must be an array of prompter names \(example), not \(ConfigurationKey.shown(value))")
                }
                var names: [String] = []
                for element in array {
                    guard let name = element.string else {
                        throw KeyReason("must be an array of prompter names \(example)")
                    }
                    guard PluginRegistry.prompters.contains(name) else {
                        throw KeyReason(
                            "unknown prompter \(ConfigurationKey.quoted(name)); choose from: "
                                + PluginRegistry.prompters.joined(separator: ", "))
                    }
                    guard !names.contains(name) else {
                        throw KeyReason("names prompter \(ConfigurationKey.quoted(name)) twice")
                    }
                    names.append(name)
                }
                guard !names.isEmpty else { throw KeyReason("must name at least one prompter, \(example)") }
                configuration.prompterOrder = names
            },
            write: { configuration, _ in configuration.prompterOrder })
    }

    /// `access.hash_executables`: a boolean.
    private static var hashExecutables: ConfigurationKey {
        ConfigurationKey(
            section: "access", name: "hash_executables",
            read: { value, configuration throws(KeyReason) in
                guard let flag = value.bool else {
                    throw KeyReason("must be true or false, not \(ConfigurationKey.shown(value))")
                }
                configuration.hashExecutables = flag
            },
            write: { configuration, _ in configuration.hashExecutables })
    }

    /// `prompts.pinentry`: the pinentry program, an absolute path.
    private static var pinentry: ConfigurationKey {
        ConfigurationKey(
            section: "prompts", name: "pinentry",
            read: { value, configuration throws(KeyReason) in
                configuration.pinentry = try ConfigurationKey.absolutePath(value)
            },
            write: { configuration, _ in configuration.pinentry })
    }
}

extension DaemonConfiguration {
    /// ``promptTimeout`` as an optional, so that it reads through ``ConfigurationKey/seconds``.
    var promptTimeoutSetting: Int? {
        get { promptTimeout }
        set { promptTimeout = newValue ?? promptTimeout }
    }
}

extension ConfigurationKeys {
    /// `[vault] mode`: `persistent` or `ephemeral`; printed resolved (the store's default).
    static var vaultMode: ConfigurationKey {
        let choices = VaultModeName.allCases.map(\.rawValue)
        return ConfigurationKey(
            section: "vault", name: "mode",
            read: { value, configuration throws(KeyReason) in
                let text = try ConfigurationKey.string(value)
                guard choices.contains(text) else {
                    throw KeyReason(
                        "unknown vault mode \(ConfigurationKey.quoted(text)); choose one of: \(choices.joined(separator: ", "))"
                    )
                }
                configuration.mode = text
            },
            write: { configuration, _ in configuration.effectiveMode.rawValue })
    }
}
