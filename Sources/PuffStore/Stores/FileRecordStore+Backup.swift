// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Backups of the file store: a snapshot of its files between two appends, and a restore that
/// replaces them with an archive's, crash-safe (docs/backup.md).
extension FileRecordStore {
    /// The marker a restore writes before it touches the vault's files: the staging folder and
    /// the names to keep. Found at start, it finishes the restore.
    var restoreMarker: String { "\(folder)/restore.pending" }
    static let restoreMagic = Array("PUFFRST\u{1}".utf8)

    public func snapshot() throws(StoreError) -> VaultSnapshot {
        var files: [VaultSnapshot.File] = []
        for name in try Self.names(in: folder).sorted() where BackupArchive.isVaultFile(name) {
            // The audit logs come from the audit store, which serialises their appends.
            guard !name.hasSuffix(".audit"), !name.hasSuffix(".audit.1") else { continue }
            let grows = name.hasSuffix(".journal")
            let end = grows ? SpaceID(hex: String(name.dropLast(8))).flatMap { committer.end(of: $0) } : nil
            if let file = try VaultSnapshot.capture("\(folder)/\(name)", name: name, whole: !grows, upTo: end) {
                files.append(file)
            }
        }
        guard access(deletedFolder, F_OK) == 0 else { return VaultSnapshot(files: files) }
        for entry in try Self.names(in: deletedFolder).sorted() where BackupArchive.deletedEntry(entry) != nil {
            var info = stat()
            guard lstat("\(deletedFolder)/\(entry)", &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            for file in try Self.names(in: "\(deletedFolder)/\(entry)").sorted() {
                let name = "deleted/\(entry)/\(file)"
                guard BackupArchive.isEntryName(name) else { continue }
                if let captured = try VaultSnapshot.capture("\(folder)/\(name)", name: name, whole: false) {
                    files.append(captured)
                }
            }
        }
        return VaultSnapshot(files: files)
    }

    public nonisolated func saveSnapshot(
        _ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?
    ) throws(StoreError) -> String? {
        try SnapshotFolder(vault: folder).save(snapshot, reason: reason, keep: keep, counting: counting)
    }

    public nonisolated func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) throws(StoreError)
        -> StagedRestore
    {
        try RestoreStaging.stage(from: fd, path: path, vault: folder, counting: counting)
    }

    /// ``stageRestore(from:path:)`` as if `freeBytes` were free in the vault's file system (tests).
    nonisolated func stageRestore(from fd: Int32, path: String, freeBytes: UInt64) throws(StoreError) -> StagedRestore {
        try RestoreStaging.stage(from: fd, path: path, vault: folder, freeBytes: freeBytes)
    }

    public nonisolated func discardRestore(_ staged: StagedRestore) {
        RestoreStaging.remove("\(folder)/\(staged.folder)")
    }

    public func commitRestore(_ staged: StagedRestore) throws(StoreError) {
        committer.forgetAll()
        readers.forgetAll()
        let marker = ([staged.folder] + staged.names).joined(separator: "\n")
        try DurableFiles.replace(
            restoreMarker, with: ChecksummedFile.encode(Array(marker.utf8), magic: Self.restoreMagic), folder: folder)
        try Self.finishRestore(in: folder)
    }

    /// Finishes a restore whose marker is in `folder` (none: nothing to do). Every step can run
    /// again after a crash: vault files not named are removed, the staged ones renamed in, the
    /// staged deleted collections moved to `deleted/` unless there already, then the marker and
    /// the staging folder go.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` for a marker that does not read (the
    ///   vault is then left as it is, and puffd does not start on it).
    static func finishRestore(in folder: String) throws(StoreError) {
        let markerPath = "\(folder)/restore.pending"
        guard let file = try DurableFiles.readWhole(markerPath) else { return }
        let lines = String(
            decoding: try ChecksummedFile.decode(file, magic: restoreMagic, name: markerPath), as: UTF8.self
        )
        .split(separator: "\n").map(String.init)
        guard let staging = lines.first, RestoreStaging.isStagingName(staging),
            lines.dropFirst().allSatisfy(BackupArchive.isVaultFile)
        else { throw .damaged(file: markerPath, offset: 0, reason: "not a restore this Puff wrote") }
        let kept = Set(lines.dropFirst())
        let stagingPath = "\(folder)/\(staging)"
        for name in try names(in: folder) where BackupArchive.isVaultFile(name) && !kept.contains(name) {
            guard unlink("\(folder)/\(name)") == 0 || errno == ENOENT else {
                throw .writeFailed("cannot remove \(folder)/\(name): \(DurableFiles.describe(errno))")
            }
        }
        // Headers last: a space exists once its header is in place.
        for name in kept.sorted(by: { !$0.hasSuffix(".header") && $1.hasSuffix(".header") })
        where access("\(stagingPath)/\(name)", F_OK) == 0 {
            guard rename("\(stagingPath)/\(name)", "\(folder)/\(name)") == 0 else {
                throw .writeFailed("cannot move \(stagingPath)/\(name) in: \(DurableFiles.describe(errno))")
            }
        }
        let stagedDeleted = "\(stagingPath)/deleted"
        if access(stagedDeleted, F_OK) == 0 {
            try DurableFiles.makePrivateFolder("\(folder)/deleted")
            for entry in try names(in: stagedDeleted) where BackupArchive.deletedEntry(entry) != nil {
                // A deleted collection still kept here stays; the backup's copy is the same one.
                if access("\(folder)/deleted/\(entry)", F_OK) == 0 { continue }
                guard rename("\(stagedDeleted)/\(entry)", "\(folder)/deleted/\(entry)") == 0 else {
                    throw .writeFailed("cannot move \(stagedDeleted)/\(entry) in: \(DurableFiles.describe(errno))")
                }
            }
            try DurableFiles.syncFolder("\(folder)/deleted")
        }
        try DurableFiles.syncFolder(folder)
        guard unlink(markerPath) == 0 else {
            throw .writeFailed("cannot remove \(markerPath): \(DurableFiles.describe(errno))")
        }
        try DurableFiles.syncFolder(folder)
        RestoreStaging.remove(stagingPath)
    }
}

/// A backup unpacked beside the vault, checked whole, waiting to replace it.
public struct StagedRestore: Sendable, Equatable {
    /// The staging folder's name in the vault folder.
    public let folder: String
    /// The vault files it holds (``BackupArchive/isVaultFile(_:)``).
    public let names: [String]
    /// What the archive held.
    public let summary: BackupSummary

    public init(folder: String, names: [String], summary: BackupSummary) {
        self.folder = folder
        self.names = names
        self.summary = summary
    }
}
