// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The default ``RecordStore``: files under one private folder (`$XDG_DATA_HOME/puff`).
///
/// Per space, `<hex>.header` (replaced atomically) and `<hex>.journal` (appended, one `fsync` per
/// record); one `catalog`; a `lock` file held with `flock` so two daemons never share a vault.
/// Folders are 0700 and files 0600 whatever the umask. A torn journal tail is moved to
/// `<hex>.journal.cut-<offset>` before the journal is truncated, so nothing disappears unseen.
/// A deleted collection's files are moved to `deleted/<time>-<hex>/` until purged.
public actor FileRecordStore: RecordStore {
    /// `"file"`.
    public static let kind = "file"

    /// The folder holding the vault.
    public let folder: String
    private let lockFD: Int32
    /// Open append descriptors, one per journal written since start.
    var journals: [SpaceID: Int32] = [:]

    /// Opens (creating if needed) the vault folder and takes its lock.
    ///
    /// - Throws: ``StoreError/busy(_:)`` when another process holds the lock,
    ///   ``StoreError/writeFailed(_:)`` when the folder cannot be made private.
    public init(folder: String) throws(StoreError) {
        try DurableFiles.makePrivateFolder(folder)
        let lockFD = try DurableFiles.openPrivate(folder + "/lock", O_RDWR | O_CREAT)
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD)
            throw .busy("another puffd is using \(folder)")
        }
        self.folder = folder
        self.lockFD = lockFD
    }

    deinit {
        for fd in journals.values { close(fd) }
        close(lockFD)
    }

    public nonisolated var location: String? { folder }

    func headerPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).header" }
    func journalPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).journal" }
    private var catalogPath: String { "\(folder)/catalog" }

    public func spaces() throws(StoreError) -> [SpaceID] {
        guard let dir = opendir(folder) else {
            throw .readFailed("cannot list \(folder): \(DurableFiles.describe(errno))")
        }
        defer { closedir(dir) }
        var found: [SpaceID] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".header"), let space = SpaceID(hex: String(name.dropLast(7))) else { continue }
            found.append(space)
        }
        return found.sorted { $0.hex < $1.hex }
    }

    public func header(of space: SpaceID) throws(StoreError) -> [UInt8] {
        let path = headerPath(space)
        guard let file = try DurableFiles.readWhole(path) else { throw .noSuchSpace(space) }
        return try ChecksummedFile.decode(file, magic: ChecksummedFile.headerMagic, name: path)
    }

    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) throws(StoreError) {
        let journal = journalPath(space)
        if access(journal, F_OK) != 0 {
            // The journal first: a header without its journal would be a space that cannot open.
            try DurableFiles.replace(journal, with: JournalFraming.preamble, folder: folder)
        }
        try DurableFiles.replace(
            headerPath(space), with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.headerMagic), folder: folder)
    }

    public func replay(_ space: SpaceID) throws(StoreError) -> JournalReplay {
        let path = journalPath(space)
        guard let bytes = try DurableFiles.readWhole(path) else { throw .noSuchSpace(space) }
        let parsed = try JournalFraming.parse(bytes, file: path)
        var cut: JournalReplay.Cut?
        if parsed.goodEnd < bytes.count {
            cut = try cutTail(of: path, bytes: bytes, at: parsed.goodEnd, space: space)
        }
        let size = UInt64(max(parsed.goodEnd, JournalFraming.preamble.count))
        return JournalReplay(records: parsed.records, cut: cut, size: size)
    }

    /// Keeps the torn bytes in a side file, then truncates the journal before them.
    private func cutTail(of path: String, bytes: [UInt8], at offset: Int, space: SpaceID) throws(StoreError)
        -> JournalReplay.Cut
    {
        let kept = "\(path).cut-\(offset)"
        try DurableFiles.replace(kept, with: Array(bytes[offset...]), folder: folder)
        if let fd = journals.removeValue(forKey: space) { close(fd) }
        let fd = try DurableFiles.openPrivate(path, O_WRONLY)
        defer { close(fd) }
        if offset < JournalFraming.preamble.count {
            // Torn while being created: write the preamble again.
            guard ftruncate(fd, 0) == 0 else { throw .writeFailed("cannot truncate \(path)") }
            try DurableFiles.writeAll(fd, JournalFraming.preamble, path: path)
        } else {
            guard ftruncate(fd, off_t(offset)) == 0 else {
                throw .writeFailed("cannot truncate \(path): \(DurableFiles.describe(errno))")
            }
        }
        try DurableFiles.sync(fd, path: path)
        return JournalReplay.Cut(offset: UInt64(offset), length: UInt64(bytes.count - offset), keptAt: kept)
    }

    public func append(_ record: [UInt8], to space: SpaceID) throws(StoreError) {
        let path = journalPath(space)
        let fd = try appendDescriptor(space, path: path)
        let before = lseek(fd, 0, SEEK_END)
        guard before >= 0 else { throw .writeFailed("cannot seek \(path): \(DurableFiles.describe(errno))") }
        do throws(StoreError) {
            try DurableFiles.writeAll(fd, JournalFraming.frame(record), path: path)
            guard fdatasync(fd) == 0 else {
                throw .writeFailed("cannot fsync \(path): \(DurableFiles.describe(errno))")
            }
        } catch {
            // Leave the journal ending where it ended, so the next append does not follow a
            // half-written frame. If even this fails, replay cuts the torn tail.
            _ = ftruncate(fd, before)
            _ = fdatasync(fd)
            throw error
        }
    }

    private func appendDescriptor(_ space: SpaceID, path: String) throws(StoreError) -> Int32 {
        if let fd = journals[space] { return fd }
        guard access(path, F_OK) == 0 else { throw .noSuchSpace(space) }
        let fd = try DurableFiles.openPrivate(path, O_WRONLY | O_APPEND)
        journals[space] = fd
        return fd
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]]) throws(StoreError) -> UInt64 {
        let path = journalPath(space)
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .noSuchSpace(space) }
        var bytes = JournalFraming.preamble
        for record in records { bytes += JournalFraming.frame(record) }
        if let fd = journals.removeValue(forKey: space) { close(fd) }
        try DurableFiles.replace(path, with: bytes, folder: folder)
        return UInt64(max(0, Int(info.st_size) - bytes.count))
    }

    public func remove(_ space: SpaceID) throws(StoreError) {
        if let fd = journals.removeValue(forKey: space) { close(fd) }
        // The header first: without it the space is gone even if the journal's unlink is lost.
        for path in [headerPath(space), journalPath(space)] where unlink(path) != 0 && errno != ENOENT {
            throw .writeFailed("cannot remove \(path): \(DurableFiles.describe(errno))")
        }
        try DurableFiles.syncFolder(folder)
    }

    public func refusedFiles() -> [StoreError] {
        DurableFiles.refusedFiles(in: folder)
    }

    public func catalog() throws(StoreError) -> [UInt8]? {
        guard let file = try DurableFiles.readWhole(catalogPath) else { return nil }
        return try ChecksummedFile.decode(file, magic: ChecksummedFile.catalogMagic, name: catalogPath)
    }

    public func replaceCatalog(_ bytes: [UInt8]) throws(StoreError) {
        try DurableFiles.replace(
            catalogPath, with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.catalogMagic), folder: folder)
    }
}
