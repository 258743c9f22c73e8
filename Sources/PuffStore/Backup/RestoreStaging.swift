// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto

/// Unpacks a backup into a private folder inside the vault folder (`restore-<random>/`, 0700, its
/// files 0600), checking every checksum first-to-last: a restore starts to replace the vault only
/// from an archive read whole and intact, and renames within one file system.
enum RestoreStaging {
    /// Whether `name` is a staging folder's name.
    static func isStagingName(_ name: String) -> Bool {
        name.hasPrefix("restore-") && SpaceID(hex: String(name.dropFirst(8))) != nil
    }

    /// Reads the archive on `fd` into a new staging folder of `vault`; `counting` is told the
    /// archive's bytes as each entry is read and written.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the archive and the offset of
    ///   the first thing wrong (the staging folder is then removed); ``StoreError/writeFailed(_:)``.
    static func stage(from fd: Int32, path: String, vault: String, counting: ByteCounting? = nil) throws(StoreError)
        -> StagedRestore
    {
        var reader = try BackupReader(fd: fd, path: path)
        let name = "restore-\(SpaceID.random().hex)"
        let staging = "\(vault)/\(name)"
        try DurableFiles.makePrivateFolder(staging)
        do throws(StoreError) {
            var names: [String] = []
            var files = 0
            var folders: Set<String> = []
            var counted: UInt64 = 0
            while let entry = try reader.next() {
                let parts = entry.name.split(separator: "/")
                if parts.count == 3 {
                    let folder = "\(staging)/deleted/\(parts[1])"
                    if !folders.contains(folder) {
                        try DurableFiles.makePrivateFolder(folder)
                        folders.insert(folder)
                    }
                } else {
                    names.append(entry.name)
                }
                try write(entry.bytes, to: "\(staging)/\(entry.name)")
                files += 1
                counting?(Int(reader.position - counted))
                counted = reader.position
            }
            counting?(Int(reader.position - counted))
            for folder in folders { try DurableFiles.syncFolder(folder) }
            if !folders.isEmpty { try DurableFiles.syncFolder("\(staging)/deleted") }
            try DurableFiles.syncFolder(staging)
            var info = stat()
            let size = fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
            let collections = names.count { $0.hasSuffix(".header") }
            return StagedRestore(
                folder: name, names: names.sorted(),
                summary: BackupSummary(files: files, collections: collections, bytes: size))
        } catch {
            remove(staging)
            throw error
        }
    }

    /// Writes a new file, 0600, and syncs it.
    private static func write(_ bytes: [UInt8], to path: String) throws(StoreError) {
        let fd = try DurableFiles.openPrivate(path, O_WRONLY | O_CREAT | O_EXCL)
        defer { close(fd) }
        try DurableFiles.writeAll(fd, bytes, path: path)
        try DurableFiles.sync(fd, path: path)
    }

    /// Removes a staging folder and what is left in it (two levels at most: `deleted/<entry>/`).
    static func remove(_ path: String) {
        guard let names = try? FileRecordStore.names(in: path) else { return }
        for name in names {
            let child = "\(path)/\(name)"
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                remove(child)
            } else {
                unlink(child)
            }
        }
        rmdir(path)
    }
}
