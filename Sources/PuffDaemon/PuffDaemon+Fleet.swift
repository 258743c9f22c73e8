// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import Logging
import PuffOpenBao
import PuffService
import PuffStore

extension PuffDaemon {
    /// The vault's store with its fleet collections (docs/fleet.md): `records` decorated by a
    /// ``FleetRecordStore`` whose log is kept through `client`, the OpenBao of `[store.openbao]`.
    ///
    /// A file store is always decorated, OpenBao configured or not: a vault that holds a fleet
    /// collection must never append to it alone (its chain would fork from the other machines'),
    /// so without a log such a collection takes no writes. A memory store is decorated only when
    /// OpenBao is configured.
    ///
    /// - Throws: `ExitCode(2)` when the vault's `fleet` file does not read (logged): without it
    ///   no fleet collection could be told from another.
    static func withFleet(
        _ records: any RecordStore, _ settings: OpenBaoSettings, client: OpenBaoClient?, logger: Logger
    ) throws -> any RecordStore {
        let log = client.map { OpenBaoFleetLog(client: $0, mount: settings.mount, prefix: settings.pathPrefix) }
        guard let files = records as? FileRecordStore else {
            return log.map { FleetRecordStore(keepingMapInMemory: records, log: $0) } ?? records
        }
        do {
            return try FleetRecordStore(files: files, log: log)
        } catch {
            logger.critical("cannot open the vault: \(error)")
            throw ExitCode(2)
        }
    }

    /// A client for the OpenBao of `settings` with its configured credentials, shared by the
    /// fleet log and the transit slots (an AppRole logs in once); nil when none is configured or
    /// the credentials do not read (logged: fleet collections are then offline and transit slots
    /// refuse, every other collection and slot works).
    static func openBaoClient(_ settings: OpenBaoSettings, environment: [String: String], logger: Logger)
        -> OpenBaoClient?
    {
        guard let address = settings.address else { return nil }
        do {
            let auth = try OpenBaoAuth.configured(
                tokenFile: settings.tokenFile, roleIDFile: settings.roleIDFile, secretIDFile: settings.secretIDFile,
                credentialsDirectory: environment["CREDENTIALS_DIRECTORY"])
            return try OpenBaoClient(
                address: address, auth: auth, namespace: settings.namespace, caFile: settings.caFile)
        } catch {
            logger.error(
                "OpenBao at \(address) cannot be used: \(error); fleet collections are offline and transit slots refuse"
            )
            return nil
        }
    }

    /// What `CheckStore` runs for `puffctl doctor`: the checks of `[store.openbao]`'s server (none
    /// when it is not configured), with the credentials read again each time, as a puffd
    /// starting now would read them, and the policy checked for `service`'s fleet collections.
    static func storeCheck(_ settings: OpenBaoSettings, environment: [String: String], service: SecretService)
        -> @Sendable () async -> [StoreCheck]
    {
        guard let address = settings.address else { return { [] } }
        return {
            let auth = Result { () throws(OpenBaoError) in
                try OpenBaoAuth.configured(
                    tokenFile: settings.tokenFile, roleIDFile: settings.roleIDFile,
                    secretIDFile: settings.secretIDFile, credentialsDirectory: environment["CREDENTIALS_DIRECTORY"])
            }
            let check = OpenBaoCheck(
                address: address, auth: auth, namespace: settings.namespace, caFile: settings.caFile,
                mount: settings.mount,
                prefix: settings.pathPrefix, transitKey: settings.transitKey, collections: await service.sharedNames)
            return await check.run(now: { Int64(time(nil)) })
        }
    }
}
