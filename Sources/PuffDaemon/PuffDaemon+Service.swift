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
        // --print-introspection touches no vault: an ephemeral one in memory serves its tables.
        let factory: RecordStoreFactory = printIntrospection ? .memory : RecordStoreFactory.named(settings.store)!
        let folder = settings.effectiveDataDir(environment: environment)
        let opened: RecordStoreFactory.Opened
        do {
            opened = try factory.make(.init(folder: folder, auditLimit: settings.auditMaxBytes, logger: logger))
        } catch StoreError.busy(let why) {
            throw VaultHolderWait.Held(why: why)
        } catch StoreError.refused(let why, _) {
            logger.critical("cannot open the vault: \(ServiceError.vaultUnwritable(why, folder: folder))")
            throw ExitCode(2)
        } catch {
            logger.critical("cannot open the vault: \(error)")
            throw ExitCode(2)
        }
        let modeName: VaultModeName = printIntrospection ? .ephemeral : settings.effectiveMode
        let mode: VaultMode =
            switch modeName {
            case .ephemeral: .ephemeral
            case .persistent: .persistent(kdf: settings.kdf == "interactive" ? .interactive : .moderate)
            }
        let records =
            printIntrospection
            ? opened.records
            : try Self.withFleet(opened.records, settings.openBao, environment: environment, logger: logger)
        let service = try await SecretService(
            store: records,
            mode: mode,
            prompter: prompter,
            itemRules: settings.itemRules,
            promptTimeout: .seconds(settings.promptTimeout),
            limits: settings.limits,
            autoLock: settings.effectiveAutoLock,
            keyKeeper: settings.kernelKeyring.flatMap { $0 > 0 ? KernelKeyKeeper(timeout: $0) : nil },
            tpm: TPM2Device(tcti: settings.tpm2Device),
            securityKeys: SecurityKeyDevice(device: settings.fido2Device),
            audit: settings.auditEnabled ? opened.audit : nil,
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
