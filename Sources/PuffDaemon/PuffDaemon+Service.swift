// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import Logging
import PuffCrypto
import PuffHardware
import PuffService
import PuffServiceBus
import PuffStore

extension PuffDaemon {
    /// The service on the vault `settings` name, with its prompters, access rules and audit log.
    ///
    /// With `loading` ``VaultLoading/later`` only the vault's lock is taken (a busy vault throws
    /// ``VaultHolderWait/Held`` here, before any name is requested); ``SecretService/loadVault()``
    /// reads it once the names are owned.
    func makeService(
        _ settings: DaemonConfiguration, environment: [String: String], logger: Logger,
        events: @escaping @Sendable (ServiceEvent) -> Void, agents: AgentPrompter? = nil,
        loading: VaultLoading = .now
    ) async throws -> SecretService {
        // validate() and the file reader have checked every name, so these lookups cannot fail.
        let prompterSettings = PluginRegistry.PrompterSettings(
            pinentry: settings.pinentry, pinentryTerminal: settings.pinentryTTY, environment: environment,
            agents: agents)
        let order = settings.prompterOrder.joined(separator: ",")
        let prompter = PluginRegistry.prompterChain(order, settings: prompterSettings, logger: logger)!
        let store: any RecordStore
        let mode: VaultMode
        var audit: (any AuditStore)?
        if settings.isEphemeral || printIntrospection {
            store = MemoryRecordStore()
            mode = .ephemeral
            audit = MemoryAuditStore(limit: settings.auditMaxBytes)
        } else {
            let folder = settings.effectiveDataDir(environment: environment)
            do {
                let files = try FileRecordStore(folder: folder, zeroTail: FileRecordStore.zeroTailStep)
                // How many records each journal flush made durable: crash_rounds.py --check-grouping
                // reads it to see that concurrent writes share flushes.
                files.onFlush { _, records in logger.debug("journal flush records=\(records)") }
                store = files
                audit = try FileAuditStore(folder: folder, limit: settings.auditMaxBytes)
            } catch StoreError.busy(let why) {
                throw VaultHolderWait.Held(why: why)
            } catch StoreError.refused(let why, _) {
                logger.critical("cannot open the vault: \(ServiceError.vaultUnwritable(why, folder: folder))")
                throw ExitCode(2)
            } catch {
                logger.critical("cannot open the vault: \(error)")
                throw ExitCode(2)
            }
            mode = .persistent(kdf: settings.kdf == "interactive" ? .interactive : .moderate)
        }
        let service = try await SecretService(
            store: store,
            mode: mode,
            prompter: prompter,
            itemRules: settings.itemRules,
            promptTimeout: .seconds(settings.promptTimeout),
            limits: settings.limits,
            autoLock: settings.effectiveAutoLock,
            keyKeeper: settings.kernelKeyring.flatMap { $0 > 0 ? KernelKeyKeeper(timeout: $0) : nil },
            tpm: TPM2Device(tcti: settings.tpm2Device),
            securityKeys: SecurityKeyDevice(device: settings.fido2Device),
            audit: settings.auditEnabled ? audit : nil,
            access: settings.access,
            keepDeletedDays: settings.keepDeletedDays,
            keepSnapshots: settings.backupKeep,
            allowsPlainSessions: settings.allowPlainSessions,
            now: { UInt64(max(0, time(nil))) },
            logger: logger,
            events: events,
            loading: loading
        )
        if loading == .now { await Self.noteUninitialized(service, logger: logger) }
        return service
    }

    /// Says that the vault has no passcode yet, when so.
    static func noteUninitialized(_ service: SecretService, logger: Logger) async {
        if await !service.isInitialized {
            logger.notice("No passcode set yet: run `puffctl init` to create the login collection")
        }
    }
}
