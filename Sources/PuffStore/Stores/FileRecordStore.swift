// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The default ``RecordStore``: files under one private folder (`$XDG_DATA_HOME/puff`).
///
/// Per space, `<hex>.header` (replaced atomically), `<hex>.journal` (appended by the
/// ``JournalCommitter``, one `fdatasync` per group of appends) and `<hex>.head` (two slots written
/// in turn, flushed once appends pause); one `catalog`; a
/// `lock` file held with `flock` so two daemons never share a vault.
/// Folders are 0700 and files 0600 whatever the umask. A torn journal tail is moved to
/// `<hex>.journal.cut-<offset>` before the journal is truncated, so nothing disappears unseen; a
/// zero-filled tail is not torn: the journal's logical end is where its zeros start.
/// A deleted collection's files are moved to `deleted/<time>-<hex>/` until purged.
public actor FileRecordStore: RecordStore {
    /// `"file"`.
    public static let kind = "file"

    /// The folder holding the vault.
    public let folder: String
    private let lockFD: Int32
    /// Writes appends in groups on a thread of its own; holds the journals' and heads'
    /// descriptors.
    nonisolated package let committer: JournalCommitter
    /// Reads records by their locators, from any thread.
    nonisolated let readers = JournalReaders()
    /// Where a head file's second slot starts: its own disk sector, so a torn write of one slot
    /// never reaches the other.
    static let headSlotSize = 512
    /// The zero tail puffd keeps ahead of its journals' appends (design core-reshaped §6): about
    /// 2,700 item records, so one flush in that many writes the file's size.
    public static let zeroTailStep = 1 << 20
    /// Durable steps left before the store stops as if killed (``crash(afterSteps:)``, tests).
    var stepsBeforeCrash: Int?
    /// Whether it stopped so.
    var crashed = false

    /// Opens (creating if needed) the vault folder and takes its lock.
    ///
    /// - Throws: ``StoreError/busy(_:)`` when another process holds the lock,
    ///   ``StoreError/writeFailed(_:)`` when the folder cannot be made private.
    /// - Parameter zeroTail: How many zero bytes a growing journal is extended by at once
    ///   (``zeroTailStep`` for puffd); 0 (tests that read or flip every byte): none.
    public init(folder: String, zeroTail: Int = 0) throws(StoreError) {
        try self.init(folder: folder, sync: { fd, _ in fdatasync(fd) }, zeroTail: zeroTail)
    }

    /// ``init(folder:zeroTail:)`` whose journal and head flushes go through `sync` (tests count,
    /// hold or fail them), its heads flushed as `headFlush` says.
    package init(
        folder: String, sync: @escaping JournalCommitter.Sync, zeroTail: Int = 0,
        headFlush: JournalCommitter.HeadFlush = .puffd
    ) throws(StoreError) {
        try DurableFiles.makePrivateFolder(folder)
        let lockFD = try DurableFiles.openPrivate(folder + "/lock", O_RDWR | O_CREAT)
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD)
            throw .busy("another puffd is using \(folder)")
        }
        do throws(StoreError) {
            // A restore a crash interrupted is finished before anything is read; a staging a
            // crash cut short is removed.
            try Self.finishRestore(in: folder)
            RestoreStaging.removeLeftovers(in: folder)
        } catch {
            close(lockFD)
            throw error
        }
        self.folder = folder
        self.lockFD = lockFD
        committer = JournalCommitter(sync: sync, zeroTail: zeroTail, headFlush: headFlush)
    }

    deinit {
        committer.stop()
        close(lockFD)
    }

    public func flushHeads() async {
        committer.flushHeads()
    }

    /// Calls `body` after each journal flush with how many records it made durable.
    public nonisolated func onFlush(_ body: @escaping @Sendable (_ space: SpaceID, _ records: Int) -> Void) {
        committer.onFlush(body)
    }

    public nonisolated var location: String? { folder }

    public nonisolated func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        try readers.read(locator, in: space, path: journalPath(space))
    }

    func headerPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).header" }
    nonisolated func journalPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).journal" }
    func headPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).head" }
    private var catalogPath: String { "\(folder)/catalog" }
    private var attemptsPath: String { "\(folder)/attempts" }

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
        try checkRunning()
        let journal = journalPath(space)
        if access(journal, F_OK) != 0 {
            // The journal first: a header without its journal would be a space that cannot open.
            try DurableFiles.replace(journal, with: JournalFraming.preamble, folder: folder)
            committer.noteEnd(JournalFraming.preamble.count, of: space)
        }
        try DurableFiles.replace(
            headerPath(space), with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.headerMagic), folder: folder)
    }

    public func replay(_ space: SpaceID) throws(StoreError) -> JournalReplay {
        let path = journalPath(space)
        guard let bytes = try DurableFiles.readWhole(path) else { throw .noSuchSpace(space) }
        let version = JournalFraming.version(of: bytes) ?? VaultRecord.currentFormat
        var parsed = try JournalFraming.salvage(bytes, file: path, preamble: JournalFraming.preamble(version: version))
        let heads = try headSlots(space)
        var torn = false
        if let gap = parsed.damaged.first.map({ Int($0.offset) }),
            JournalFraming.ZeroTail.isUnacknowledgedGroup(at: gap, in: bytes, records: parsed.records, heads: heads)
        {
            // Zeros where a frame should start, then more: a group written over the zero-filled
            // tail that a power cut kept only in part. The head says none of it was acknowledged.
            parsed.records.removeAll { $0.offset >= UInt64(gap) }
            parsed.damaged = []
            parsed.goodEnd = gap
            torn = true
        }
        var cut: JournalReplay.Cut?
        if parsed.goodEnd < bytes.count, torn || !JournalFraming.ZeroTail.isZeros(bytes, from: parsed.goodEnd) {
            cut = try cutTail(of: path, bytes: bytes, at: parsed.goodEnd, space: space)
        }
        // The logical end: a zero-filled tail written ahead of appends holds no record.
        let size = UInt64(max(parsed.goodEnd, JournalFraming.preamble.count))
        committer.noteEnd(Int(size), of: space)
        return JournalReplay(
            records: parsed.records, cut: cut, size: size, version: version, heads: heads, damaged: parsed.damaged)
    }

    /// The whole head slots of `space` (none when it has no head file).
    func headSlots(_ space: SpaceID) throws(StoreError) -> [[UInt8]] {
        guard let bytes = try DurableFiles.readWhole(headPath(space)) else { return [] }
        return [0, Self.headSlotSize].compactMap { start in
            guard start + JournalFraming.frameOverhead <= bytes.count else { return nil }
            let end = min(bytes.count, start + Self.headSlotSize)
            let slot = JournalFraming.preamble + bytes[start..<end]
            guard let parsed = try? JournalFraming.parse(slot, file: ""), parsed.records.count == 1 else { return nil }
            return parsed.records[0].bytes
        }
    }

    /// Keeps the torn bytes in a side file (without the zero tail after them), then truncates the
    /// journal before them.
    private func cutTail(of path: String, bytes: [UInt8], at offset: Int, space: SpaceID) throws(StoreError)
        -> JournalReplay.Cut
    {
        let kept = "\(path).cut-\(offset)"
        let torn = bytes[offset...].lastIndex { $0 != 0 }.map { offset...$0 }.map { Array(bytes[$0]) } ?? []
        try DurableFiles.replace(kept, with: torn, folder: folder)
        committer.forget(space)
        readers.forget(space)
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
        return JournalReplay.Cut(offset: UInt64(offset), length: UInt64(torn.count), keptAt: kept)
    }

    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await append(contentsOf: [record], to: space, head: head)
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await queueAppend(records, to: space, head: head, expecting: nil).durable()
    }

    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        try queueAppend(records, to: space, head: head, expecting: generation)
    }

    private func queueAppend(
        _ records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) throws(StoreError) -> AppendTicket {
        try checkRunning()
        let path = journalPath(space)
        guard access(path, F_OK) == 0 else { throw .noSuchSpace(space) }
        let generation = generation ?? committer.generation(of: space)
        let ticket = AppendTicket(generation: generation)
        var frames: [UInt8] = []
        for record in records { frames += JournalFraming.frame(record) }
        committer.submit(
            JournalCommitter.Request(
                space: space, journalPath: path, headPath: headPath(space), frames: frames, records: records.count,
                head: head, generation: generation, ticket: ticket))
        return ticket
    }

    public func replaceHead(_ head: [UInt8], of space: SpaceID) throws(StoreError) {
        try checkRunning()
        committer.forgetHead(space)
        readers.forget(space)
        try DurableFiles.replace(headPath(space), with: JournalFraming.frame(head), folder: folder)
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        throws(StoreError) -> JournalRewrite
    {
        try checkRunning()
        let path = journalPath(space)
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .noSuchSpace(space) }
        var bytes = JournalFraming.preamble(version: version)
        for record in records { bytes += JournalFraming.frame(record) }
        committer.forget(space)
        readers.forget(space)
        var keptAs: String?
        if let keepingOldAs {
            // A second name for the old journal first, so the rename below never loses it; `link`
            // never replaces, so an earlier kept journal of the same name stays as it was.
            var attempt = 1
            while keptAs == nil {
                let suffix = JournalRewrite.suffix(keepingOldAs, attempt: attempt)
                if link(path, path + suffix) == 0 {
                    keptAs = suffix
                } else if errno != EEXIST || attempt >= 1000 {
                    throw .writeFailed("cannot keep \(path) as \(path + suffix): \(DurableFiles.describe(errno))")
                }
                attempt += 1
            }
        }
        try DurableFiles.replace(path, with: bytes, folder: folder)
        committer.noteEnd(bytes.count, of: space)
        return JournalRewrite(shrunk: UInt64(max(0, Int(info.st_size) - bytes.count)), keptAs: keptAs)
    }

    public func remove(_ space: SpaceID) throws(StoreError) {
        try checkRunning()
        committer.forget(space)
        readers.forget(space)
        // The header first: without it the space is gone even if the journal's unlink is lost.
        for path in [headerPath(space), journalPath(space), headPath(space), indexPath(space)]
        where unlink(path) != 0 && errno != ENOENT {
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
        try checkRunning()
        try DurableFiles.replace(
            catalogPath, with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.catalogMagic), folder: folder)
        try passCrashPoint()
    }

    public func passcodeAttempts() throws(StoreError) -> [UInt8]? {
        guard let file = try DurableFiles.readWhole(attemptsPath) else { return nil }
        return try ChecksummedFile.decode(file, magic: ChecksummedFile.attemptsMagic, name: attemptsPath)
    }

    public func replacePasscodeAttempts(_ bytes: [UInt8]) throws(StoreError) {
        try checkRunning()
        try DurableFiles.replace(
            attemptsPath, with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.attemptsMagic), folder: folder)
    }
}
