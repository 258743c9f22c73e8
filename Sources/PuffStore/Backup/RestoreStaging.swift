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

    /// Reads the archive on `fd` into a new staging folder of `vault`, entry by entry, each file
    /// written as it is read (memory stays at one piece) and checked as `puffd` would read it
    /// (``RestoreCheck``). Before anything is written, the archive's size is checked against the
    /// space free in the vault's file system: the staged files take at most that much.
    /// `counting` is told the archive's bytes as they are read and written.
    ///
    /// - Parameter freeBytes: The space free for the staging (tests); nil asks the file system.
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the archive and the offset of
    ///   the first thing wrong, ``StoreError/writeFailed(_:)`` (no space, a write failed); the
    ///   staging folder is then removed, and the vault was not touched.
    static func stage(
        from fd: Int32, path: String, vault: String, freeBytes: UInt64? = nil, counting: ByteCounting? = nil
    ) throws(StoreError) -> StagedRestore {
        var reader = try BackupReader(fd: fd, path: path)
        var info = stat()
        let size = fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
        if let free = freeBytes ?? RestoreCheck.freeBytes(in: vault), free < size + reserve {
            throw .writeFailed(
                "no space left on device for the vault at \(vault): staging \(path) takes up to \(size) bytes "
                    + "and \(free) are free: free space, then retry")
        }
        let name = "restore-\(SpaceID.random().hex)"
        let staging = "\(vault)/\(name)"
        try DurableFiles.makePrivateFolder(staging)
        do throws(StoreError) {
            var names: [String] = []
            var files = 0
            var folders: Set<String> = []
            var open: (name: String, fd: Int32)?
            var counted: UInt64 = 0
            defer { if let open { close(open.fd) } }
            while let entry = try reader.next(receiving: { (head, piece) throws(StoreError) in
                if open?.name != head.name {
                    let parts = head.name.split(separator: "/")
                    if parts.count == 3, !folders.contains(String(parts[1])) {
                        if folders.isEmpty { try DurableFiles.makePrivateFolder("\(staging)/deleted") }
                        try DurableFiles.makePrivateFolder("\(staging)/deleted/\(parts[1])")
                        folders.insert(String(parts[1]))
                    }
                    if let previous = open { close(previous.fd) }
                    open = nil
                    let fd = try DurableFiles.openPrivate("\(staging)/\(head.name)", O_WRONLY | O_CREAT | O_EXCL)
                    open = (head.name, fd)
                }
                try DurableFiles.writeAll(open!.fd, piece, path: "\(staging)/\(head.name)")
                counting?(piece.count)
                counted += UInt64(piece.count)
            }) {
                let file = "\(staging)/\(entry.name)"
                try DurableFiles.sync(open!.fd, path: file)
                close(open!.fd)
                open = nil
                if let problem = RestoreCheck.problem(staged: file, entry: entry) {
                    throw .damaged(
                        file: path, offset: entry.offset, reason: "\(problem); puffd would not read it as a vault file")
                }
                if !entry.name.contains("/") { names.append(entry.name) }
                files += 1
                counting?(Int(reader.position - counted))
                counted = reader.position
            }
            counting?(Int(reader.position - counted))
            for folder in folders { try DurableFiles.syncFolder("\(staging)/deleted/\(folder)") }
            if !folders.isEmpty { try DurableFiles.syncFolder("\(staging)/deleted") }
            try DurableFiles.syncFolder(staging)
            let collections = names.count { $0.hasSuffix(".header") }
            return StagedRestore(
                folder: name, names: names.sorted(),
                summary: BackupSummary(files: files, collections: collections, bytes: size))
        } catch {
            remove(staging)
            throw error
        }
    }

    /// Room kept free beyond the archive's size (folder entries, the marker, the audit entries).
    static let reserve: UInt64 = 1 << 20

    /// Removes every staging folder of `vault`: at start, after a pending restore was finished,
    /// none is in use, and one left there was cut short by a crash while staging.
    static func removeLeftovers(in vault: String) {
        guard let names = try? FileRecordStore.names(in: vault) else { return }
        for name in names where isStagingName(name) { remove("\(vault)/\(name)") }
    }

    /// Removes a staging folder and what is left in it (two levels at most: `deleted/<entry>/`),
    /// never following a link: a link planted under a staging name (or named by a planted
    /// `restore.pending`) is removed itself, and what it points at is left alone.
    static func remove(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOTDIR || errno == ELOOP { unlink(path) }
            return
        }
        removeContents(of: fd)
        rmdir(path)
    }

    /// Removes everything in the folder open on `fd` (which it closes), relative to `fd`, so no
    /// name is resolved through a link swapped in meanwhile.
    private static func removeContents(of fd: Int32) {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        for name in names {
            let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if child >= 0 {
                removeContents(of: child)
                unlinkat(fd, name, AT_REMOVEDIR)
            } else {
                unlinkat(fd, name, 0)
            }
        }
    }
}
