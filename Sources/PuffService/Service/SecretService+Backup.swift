// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
public import PuffStore

/// What `puffctl backup` wrote.
public struct BackupReport: Sendable, Equatable {
    /// Files, collection headers and bytes in the archive.
    public var summary: BackupSummary
    /// Items of the collections whose items are known (visible ones, and open private or hidden ones).
    public var items: Int
    /// Collections whose items are not known until they open (locked private, closed hidden).
    public var unknownCollections: Int
    /// Files in the archive.
    public var files: Int { summary.files }
    /// Collection headers in the archive, hidden ones included.
    public var collections: Int { summary.collections }
    /// The archive's size.
    public var bytes: UInt64 { summary.bytes }
}

extension SecretService {
    /// Writes a backup of the whole vault to `fd` (a regular file the caller opened): every
    /// collection's files still sealed, hidden ones included, taken at one instant between two
    /// appends (docs/backup.md). The files are captured under the write turn, which is held only
    /// for that; they are copied afterwards, off the actor, while clients are served.
    ///
    /// - Parameters:
    ///   - name: The archive's name in messages.
    ///   - progress: Told the bytes of the vault's files copied.
    /// - Throws: ``ServiceError/failed(_:)``.
    public func backup(into fd: Int32, name: String, progress: ProgressHandler? = nil) async throws(ServiceError)
        -> BackupReport
    {
        let meter = meter(.bytes, progress)
        await beginWrite()
        let snapshot: VaultSnapshot
        do {
            snapshot = try await captureSnapshot()
        } catch {
            endWrite()
            throw error
        }
        let (items, unknown) = knownItems()
        endWrite()
        meter.expect(Int(clamping: snapshot.length))
        meter.advance(by: 0)
        let written = await BlockingWork.result { () throws(StoreError) in
            try snapshot.write(to: fd, path: name, counting: { meter.advance(by: $0) })
        }
        switch written {
        case .success(let summary):
            meter.finish()
            logger.notice(
                "Vault backed up",
                metadata: ["files": "\(summary.files)", "bytes": "\(summary.bytes)", "to": "\(name)"])
            return BackupReport(summary: summary, items: items, unknownCollections: unknown)
        case .failure(let error):
            logger.error("A backup failed", metadata: ["to": "\(name)", "error": "\(error)"])
            throw .failed("the backup could not be written: \(error)")
        }
    }

    /// Writes an automatic snapshot of the whole vault into `<vault>/snapshots/`, keeping the
    /// newest ``keepSnapshots``, before a change that replaces files: restore, repair, a re-key
    /// (`passwd`), an import. Call it holding the write turn (``beginWrite()``), so the snapshot
    /// falls between two appends and the change follows it with nothing in between.
    ///
    /// - Parameters:
    ///   - reason: One word for the file name: `restore`, `repair`, `passwd`, `import`.
    ///   - progress: Counts the bytes copied against the `estimate` made for them.
    /// - Returns: The snapshot's path; nil for a vault kept in memory or `[backup] keep = 0`.
    /// - Throws: ``ServiceError/failed(_:)`` when it cannot be written: the change must not go
    ///   on then, since it could not be undone.
    public func snapshotBeforeChange(_ reason: String, progress: (meter: ProgressMeter, estimate: Int)? = nil)
        async throws(ServiceError) -> String?
    {
        guard takesSnapshots else { return nil }
        let snapshot = try await captureSnapshot()
        var counting: ByteCounting?
        if let (meter, estimate) = progress {
            meter.revise(estimate, to: Int(clamping: snapshot.length))
            counting = { meter.advance(by: $0) }
        }
        let path: String?
        do {
            path = try await store.saveSnapshot(snapshot, reason: reason, keep: keepSnapshots, counting: counting)
        } catch {
            logger.error("An automatic snapshot failed", metadata: ["reason": "\(reason)", "error": "\(error)"])
            throw .failed("the vault could not be saved as a snapshot first (\(error)); nothing was changed")
        }
        logger.notice("Vault snapshot taken", metadata: ["reason": "\(reason)", "at": "\(path ?? "-")"])
        return path
    }

    /// Whether ``snapshotBeforeChange(_:progress:)`` writes one: a vault in files that keeps any.
    var takesSnapshots: Bool { store.location != nil && keepSnapshots > 0 }

    /// The vault's files and audit logs now. The caller holds the write turn.
    func captureSnapshot() async throws(ServiceError) -> VaultSnapshot {
        do {
            let files = try await store.snapshot()
            // Entries waiting to be written go in first; the audit store's lock keeps appends out.
            auditLog?.flush()
            let logs = VaultSnapshot(files: try auditLog?.store.snapshotFiles() ?? [])
            return VaultSnapshot(combining: [files, logs])
        } catch {
            logger.error("The vault could not be captured for a backup", metadata: ["error": "\(error)"])
            throw .failed("the vault's files could not be read: \(error)")
        }
    }

    /// Items of the collections whose items are known, and how many collections' are not.
    private func knownItems() -> (items: Int, unknown: Int) {
        var items = 0
        var unknown = hiddenHeaders.count
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id] else { continue }
            if vault.isLocked, vault.isPrivate { unknown += 1 } else { items += vault.count }
        }
        return (items, unknown)
    }
}
