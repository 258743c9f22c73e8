// SPDX-License-Identifier: Apache-2.0
import Glibc
import Synchronization

/// The file ``AuditStore``: `<space>.audit` and its predecessor `<space>.audit.1` in the vault
/// folder, 0600 whatever the umask.
///
/// A class behind a `Mutex`, not an actor: the service appends synchronously from its own actor,
/// so entries land in the order they happened, and an append is one `write` to the page cache.
public final class FileAuditStore: AuditStore {
    public let limit: Int
    /// The vault folder.
    public let folder: String

    private struct Writer {
        let fd: Int32
        var size: Int
    }

    private struct State {
        var writers: [SpaceID: Writer] = [:]
        /// Spaces appended to since the last sync.
        var dirty: Set<SpaceID> = []
        /// A rotation renamed a file since the last sync.
        var folderChanged = false
        /// Spaces whose current file held entries when it was last read, so its absence now
        /// means someone removed it.
        var seen: Set<SpaceID> = []
    }

    private let state = Mutex(State())

    /// A store over `folder` (made 0700 if new) whose logs rotate past `limit` bytes.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` when the folder cannot be made private.
    public init(folder: String, limit: Int = 1 << 20) throws(StoreError) {
        try DurableFiles.makePrivateFolder(folder)
        self.folder = folder
        self.limit = max(limit, AuditFraming.preamble.count + 1)
    }

    deinit {
        state.withLock { state in
            for writer in state.writers.values {
                _ = fdatasync(writer.fd)
                close(writer.fd)
            }
        }
    }

    private func current(_ space: SpaceID) -> String { "\(folder)/\(space.hex).audit" }
    private func predecessor(_ space: SpaceID) -> String { "\(folder)/\(space.hex).audit.1" }

    public func append(_ entries: [[UInt8]], to space: SpaceID) throws(StoreError) {
        let frames = entries.flatMap(JournalFraming.frame)
        try state.withLock { (state) throws(StoreError) in
            var writer: Writer
            if let open = state.writers[space] { writer = open } else { writer = try openWriter(space) }
            if writer.size > AuditFraming.preamble.count, writer.size + frames.count > limit {
                state.writers[space] = nil
                writer = try rotate(space, writer)
                state.folderChanged = true
            }
            state.writers[space] = writer
            do throws(StoreError) {
                try DurableFiles.writeAll(writer.fd, frames, path: current(space))
            } catch {
                // The next append must not follow half a frame.
                _ = ftruncate(writer.fd, off_t(writer.size))
                throw error
            }
            state.writers[space]!.size += frames.count
            state.dirty.insert(space)
        }
    }

    /// Opens the current file for appending: creates it, cuts a torn tail off, or moves a damaged
    /// one aside as the predecessor so new entries never follow bad bytes. A planted file that is
    /// not a regular file (a FIFO, a link) is moved aside the same way, unread: it stays visible
    /// as the predecessor's damage, and the log goes on in a new file instead of stopping.
    private func openWriter(_ space: SpaceID) throws(StoreError) -> Writer {
        let path = current(space)
        let found: [UInt8]?
        do throws(StoreError) {
            found = try DurableFiles.readWhole(path)
        } catch {
            guard case .damaged = error else { throw error }
            guard rename(path, predecessor(space)) == 0 else {
                throw .writeFailed("cannot move \(path) aside: \(DurableFiles.describe(errno))")
            }
            return try create(space)
        }
        if let bytes = found {
            if let parsed = try? JournalFraming.parse(bytes, file: path, preamble: AuditFraming.preamble),
                parsed.goodEnd >= AuditFraming.preamble.count
            {
                let fd = try DurableFiles.openPrivate(path, O_WRONLY | O_APPEND)
                if parsed.goodEnd < bytes.count, ftruncate(fd, off_t(parsed.goodEnd)) != 0 {
                    close(fd)
                    throw .writeFailed("cannot truncate \(path): \(DurableFiles.describe(errno))")
                }
                return Writer(fd: fd, size: parsed.goodEnd)
            }
            if bytes.count > AuditFraming.preamble.count, rename(path, predecessor(space)) != 0 {
                throw .writeFailed("cannot move \(path) aside: \(DurableFiles.describe(errno))")
            }
        }
        return try create(space)
    }

    /// Makes the full current file the predecessor and starts a new one.
    private func rotate(_ space: SpaceID, _ writer: Writer) throws(StoreError) -> Writer {
        // The old entries are durable before their file changes name.
        _ = fdatasync(writer.fd)
        close(writer.fd)
        guard rename(current(space), predecessor(space)) == 0 else {
            throw .writeFailed("cannot rotate \(current(space)): \(DurableFiles.describe(errno))")
        }
        return try create(space)
    }

    private func create(_ space: SpaceID) throws(StoreError) -> Writer {
        let path = current(space)
        let fd = try DurableFiles.openPrivate(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        do throws(StoreError) {
            try DurableFiles.writeAll(fd, AuditFraming.preamble, path: path)
        } catch {
            close(fd)
            throw error
        }
        return Writer(fd: fd, size: AuditFraming.preamble.count)
    }

    public func wasRemoved(_ space: SpaceID) -> Bool {
        state.withLock { state in
            var named = stat()
            let present = lstat(current(space), &named) == 0
            guard let writer = state.writers[space] else {
                // Not opened since start: gone when it was read with entries and is absent now.
                guard state.seen.contains(space), !present else { return false }
                state.seen.remove(space)
                return true
            }
            var open = stat()
            guard fstat(writer.fd, &open) == 0 else { return false }
            guard open.st_nlink == 0 || !present || named.st_ino != open.st_ino || named.st_dev != open.st_dev else {
                return false
            }
            close(writer.fd)
            state.writers[space] = nil
            state.dirty.remove(space)
            return true
        }
    }

    public func entries(of space: SpaceID) throws(StoreError) -> AuditReplay {
        try state.withLock { (state) throws(StoreError) in
            var replay = AuditReplay(records: [])
            for path in [predecessor(space), current(space)] {
                do throws(StoreError) {
                    // A file that is not a regular file is damage too: named, never read or waited on.
                    guard let bytes = try DurableFiles.readWhole(path) else { continue }
                    if path == current(space), bytes.count > AuditFraming.preamble.count { state.seen.insert(space) }
                    let parsed = try JournalFraming.parse(bytes, file: path, preamble: AuditFraming.preamble)
                    replay.records += parsed.records.map(\.bytes)
                } catch {
                    replay.damage = "\(error)"
                }
            }
            return replay
        }
    }

    public func sync() throws(StoreError) {
        // Duplicates, so a rotation may close the originals while the syncs run unlocked.
        let (descriptors, folderChanged) = state.withLock { state in
            defer {
                state.dirty = []
                state.folderChanged = false
            }
            return (state.dirty.compactMap { state.writers[$0].map { dup($0.fd) } }, state.folderChanged)
        }
        var failure: StoreError?
        for fd in descriptors where fd >= 0 {
            if fdatasync(fd) != 0 {
                failure = .writeFailed("cannot sync an audit log: \(DurableFiles.describe(errno))")
            }
            close(fd)
        }
        if folderChanged { try DurableFiles.syncFolder(folder) }
        if let failure { throw failure }
    }

    public func closeLog(_ space: SpaceID) {
        state.withLock { state in
            state.dirty.remove(space)
            guard let writer = state.writers.removeValue(forKey: space) else { return }
            _ = fdatasync(writer.fd)
            Glibc.close(writer.fd)
        }
    }

    public func snapshotFiles() throws(StoreError) -> [VaultSnapshot.File] {
        try state.withLock { (_) throws(StoreError) in
            var files: [VaultSnapshot.File] = []
            for name in try FileRecordStore.names(in: folder).sorted()
            where BackupArchive.isVaultFile(name) && (name.hasSuffix(".audit") || name.hasSuffix(".audit.1")) {
                if let file = try VaultSnapshot.capture("\(folder)/\(name)", name: name, whole: false) {
                    files.append(file)
                }
            }
            return files
        }
    }

    public func remove(_ space: SpaceID) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            if let writer = state.writers.removeValue(forKey: space) { close(writer.fd) }
            state.dirty.remove(space)
            for path in [current(space), predecessor(space)] where unlink(path) != 0 && errno != ENOENT {
                throw .writeFailed("cannot remove \(path): \(DurableFiles.describe(errno))")
            }
        }
        try DurableFiles.syncFolder(folder)
    }
}
