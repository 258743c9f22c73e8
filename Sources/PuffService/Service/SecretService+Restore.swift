// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
public import PuffStore

/// What `puffctl restore` did.
public struct RestoreReport: Sendable, Equatable {
    /// What the archive held.
    public var summary: BackupSummary
    /// Where the vault as it was before is kept (nil for a vault kept in memory or `[backup] keep = 0`).
    public var snapshot: String?
    /// The visible collections now, all locked.
    public var collections: [CollectionID]
    /// Files in the archive.
    public var files: Int { summary.files }
    /// Collection headers in the archive, hidden ones included.
    public var headers: Int { summary.collections }
    /// The archive's size.
    public var bytes: UInt64 { summary.bytes }
}

extension SecretService {
    /// Replaces the whole vault with the backup on `fd` (`puffctl restore`). It destroys what the
    /// vault holds and the backup does not, and can bring back old passcodes and settings, so it
    /// needs the person whoever calls (issue 25 item 3 review): `consent` is the passcode of
    /// `collection` (the default collection when nil), or a yes through the prompter chain. Only a
    /// vault with no collection at all (nothing to lose) is restored without. A refusal is
    /// audited in every open collection's log, which stays.
    ///
    /// Then the archive is unpacked and checked whole (``RecordStore/stageRestore(from:path:)``);
    /// the vault as it is is kept as an automatic snapshot, a `restore-vault` entry is written to
    /// every open collection's log (so it is in that snapshot), every collection is locked (keys
    /// dropped, the kernel keyring's too) and the files are replaced, crash-safe; the vault is
    /// read again, every collection locked. The wrong-passcode delays stay as they were.
    ///
    /// `progress` is told, once the person agreed, the archive's bytes read, then those of the
    /// vault kept as a snapshot (estimated as the archive's size until it is taken).
    ///
    /// - Throws: ``ServiceError/notConfirmed(_:)``, ``ServiceError/wrongPasscode``,
    ///   ``ServiceError/noSuchObject`` (no such `collection`); ``ServiceError/failed(_:)``
    ///   naming the archive and offset of damage (nothing is changed then), or when the snapshot
    ///   or the replacement cannot be written.
    public func restore(
        from fd: Int32, name: String, caller: Caller, consent: Consent, collection: CollectionID? = nil,
        progress: ProgressHandler? = nil
    ) async throws(ServiceError) -> RestoreReport {
        try await requireRestoreConsent(consent, collection: collection, name: name, caller: caller)
        let meter = meter(.bytes, progress)
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        meter.expect(takesSnapshots ? 2 * size : size)
        meter.advance(by: 0)
        let staged: StagedRestore
        do {
            staged = try await store.stageRestore(from: fd, path: name, counting: { meter.advance(by: $0) })
        } catch {
            logger.error("A restore was refused: the backup does not read", metadata: ["error": "\(error)"])
            throw .failed("nothing was restored: \(error)")
        }
        await beginWrite()
        defer { endWrite() }
        auditVaultRestore(name: name, caller: caller, result: .allowed)
        let snapshot: String?
        do {
            snapshot = try await snapshotBeforeChange("restore", progress: (meter, size))
        } catch {
            await store.discardRestore(staged)
            throw error
        }
        let before = collectionOrder.filter { $0 != .session && collectionStates[$0]?.isHidden == false }
        closeEveryCollection()
        do {
            try await store.commitRestore(staged)
        } catch {
            logger.critical(
                "A restore could not replace the vault's files; puffd finishes it at its next start",
                metadata: ["error": "\(error)", "snapshot": "\(snapshot ?? "-")"])
            throw .failed("the vault's files could not be replaced: \(error); restart puffd to finish the restore")
        }
        try await reloadVault(announcingGone: before)
        meter.finish()
        logger.notice(
            "Vault restored from a backup; every collection is locked",
            metadata: [
                "from": "\(name)", "files": "\(staged.summary.files)", "snapshot": "\(snapshot ?? "-")",
                "client.name": "\(caller.client)", "client.executable": "\(caller.executable ?? "-")",
            ])
        return RestoreReport(
            summary: staged.summary, snapshot: snapshot,
            collections: collectionOrder.filter { $0 != .session })
    }

    /// One `restore-vault` entry in the log of every open collection.
    private func auditVaultRestore(name: String, caller: Caller, result: AuditResult) {
        guard let auditLog else { return }
        for id in collectionOrder {
            guard let vault = collectionStates[id], let space = vault.space, let sealer = vault.auditSealer else {
                continue
            }
            let fields = AuditFields(.restoreVault, result: result, time: now(), item: 0, label: name, caller: caller)
            auditLog.append(fields, to: space, sealer: sealer)
        }
    }

    /// Checks the person's consent to a restore (``restore(from:name:caller:consent:collection:)``).
    private func requireRestoreConsent(
        _ consent: Consent, collection: CollectionID?, name: String, caller: Caller
    ) async throws(ServiceError) {
        let holdsCollections = !hiddenHeaders.isEmpty || collectionOrder.contains { $0 != .session }
        guard holdsCollections else { return }
        let target: CollectionID
        if case .passcode = consent {
            guard let chosen = collection ?? aliases["default"], collectionStates[chosen] != nil else {
                throw .noSuchObject
            }
            target = chosen
        } else {
            target = CollectionID("")
        }
        do {
            try await requireConsent(
                consent, in: target, change: "replace every collection of the vault with those of \(name)",
                caller: caller)
        } catch {
            auditVaultRestore(name: name, caller: caller, result: Self.auditResult(of: error))
            logger.notice(
                "A restore was not confirmed; nothing was changed",
                metadata: ["from": "\(name)", "client.name": "\(caller.client)", "error": "\(error)"])
            throw error
        }
    }

    /// Locks every collection for good (keys dropped, here and in the kernel keyring) and closes
    /// every audit log, so nothing is left pointing at the files about to be replaced.
    private func closeEveryCollection() {
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id] else { continue }
            flushFastReads()
            finishLocking(vault, vault.lock(forGood: true))
            if let space = vault.space { auditLog?.close(space) }
        }
        for space in hiddenHeaders.keys { auditLog?.close(space) }
    }

    /// Reads the vault again after its files were replaced: every collection as after a start
    /// (locked), `session` kept. Announces the visible collections that went and those there now.
    private func reloadVault(announcingGone before: [CollectionID]) async throws(ServiceError) {
        let loaded = try await VaultLoader.load(store: store, logger: logger, tpm: tpm)
        catalog = loaded.catalog
        hiddenHeaders = loaded.hidden
        damaged = loaded.damaged
        vaultProblems = loaded.problems
        var states = loaded.collections
        states[.session] = collectionStates[.session]
        collectionStates = states
        collectionOrder = loaded.order + [.session]
        var aliases = Dictionary(
            uniqueKeysWithValues: (catalog?.aliases ?? [:]).map { ($0.key, CollectionID($0.value)) })
        aliases["session"] = .session
        self.aliases = aliases
        for id in before { emit(.collectionDeleted(id)) }
        for id in loaded.order { emit(.collectionCreated(id)) }
    }
}
