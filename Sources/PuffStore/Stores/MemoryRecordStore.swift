// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The same ``RecordStore`` in process memory: for tests, and for `puffd --ephemeral`. Tests can
/// make writes fail or wait on purpose, and read what a file store would have written.
public actor MemoryRecordStore: RecordStore {
    /// `"memory"`.
    public static let kind = "memory"

    private struct Space {
        var header: [UInt8]
        var records: [[UInt8]] = []
        var version = VaultRecord.currentFormat
        /// The two head slots, as a file store keeps them.
        var heads: [[UInt8]?] = [nil, nil]
        var nextSlot = 1
    }

    private var stored: [SpaceID: Space] = [:]
    /// Each space's records by where their frames would start in a file, for
    /// ``read(_:in:)`` from any thread: the very arrays `stored` holds (no bytes copied), set
    /// again (``locate(_:)``) whenever a journal changes other than by an append.
    private let located = Mutex<[SpaceID: Located]>([:])

    private struct Located {
        var records: [UInt64: [UInt8]] = [:]
        var end = UInt64(JournalFraming.preamble.count)

        mutating func add(_ record: [UInt8]) {
            records[end] = record
            end += UInt64(record.count + JournalFraming.frameOverhead)
        }
    }
    private var setAsideStored: [SetAsideSpace.Name: Space] = [:]
    private var catalogBytes: [UInt8]?
    private var pendingReplacements: [SpaceReplacement] = []
    private var attemptsBytes: [UInt8]?
    /// Journals a rewrite kept aside, by file name (tests).
    public private(set) var keptJournals: [String: [[UInt8]]] = [:]
    /// How many appends succeeded: each one write and one sync on disk, whatever it held.
    public private(set) var appendCount = 0
    private var pendingFailures: [StoreError] = []
    private var failsAlways: StoreError?
    private var holdsNextWrite = false
    private var heldWrite: CheckedContinuation<Void, Never>?
    private var holdingWaiters: [CheckedContinuation<Void, Never>] = []

    /// An empty store.
    public init() {}

    public nonisolated var location: String? { nil }

    public nonisolated func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        let found = located.withLock { $0[space]?.records[locator.offset] }
        guard let found, found.count == Int(locator.length) else {
            throw .damaged(
                file: "\(space.hex).journal", offset: locator.offset,
                reason: "the record there changed since it was read")
        }
        return found
    }

    /// Sets what ``read(_:in:)`` finds for `space` from `stored`.
    private func locate(_ space: SpaceID) {
        var found = Located()
        for record in stored[space]?.records ?? [] { found.add(record) }
        located.withLock { $0[space] = stored[space] == nil ? nil : found }
    }

    public func spaces() -> [SpaceID] {
        stored.keys.sorted { $0.hex < $1.hex }
    }

    public func header(of space: SpaceID) throws(StoreError) -> [UInt8] {
        guard let found = stored[space] else { throw .noSuchSpace(space) }
        return found.header
    }

    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await gate()
        let created = stored[space] == nil
        stored[space, default: Space(header: bytes)].header = bytes
        if created { locate(space) }
    }

    public func replay(_ space: SpaceID) throws(StoreError) -> JournalReplay {
        guard let found = stored[space] else { throw .noSuchSpace(space) }
        var offset = UInt64(JournalFraming.preamble.count)
        var records: [JournalReplay.Record] = []
        records.reserveCapacity(found.records.count)
        for bytes in found.records {
            records.append(JournalReplay.Record(offset: offset, bytes: bytes))
            offset += UInt64(bytes.count + JournalFraming.frameOverhead)
        }
        return JournalReplay(
            records: records, cut: nil, size: offset, version: found.version, heads: found.heads.compactMap { $0 })
    }

    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await append(contentsOf: [record], to: space, head: head)
    }

    /// Counts as one append in ``appendCount`` (one write, one sync on disk).
    /// Appends at once, before returning a settled ticket: this store has no queue of its own,
    /// so its writes stay one at a time.
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        let offset = try await appendReturningOffset(records, to: space, head: head)
        return AppendTicket(settled: .success(()), generation: generation ?? 0, offset: offset)
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        _ = try await appendReturningOffset(records, to: space, head: head)
    }

    /// Appends; returns where the first record's frame starts.
    private func appendReturningOffset(_ records: [[UInt8]], to space: SpaceID, head: [UInt8]?)
        async throws(StoreError) -> UInt64
    {
        try await gate()
        guard stored[space] != nil else { throw .noSuchSpace(space) }
        stored[space]!.records.append(contentsOf: records)
        let offset = located.withLock { located -> UInt64 in
            let offset = located[space]?.end ?? 0
            for record in records { located[space]?.add(record) }
            return offset
        }
        if let head {
            stored[space]!.heads[stored[space]!.nextSlot] = head
            stored[space]!.nextSlot = 1 - stored[space]!.nextSlot
        }
        appendCount += 1
        return offset
    }

    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await gate()
        guard stored[space] != nil else { throw .noSuchSpace(space) }
        stored[space]!.heads = [head, nil]
        stored[space]!.nextSlot = 1
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        try await gate()
        guard let old = stored[space] else { throw .noSuchSpace(space) }
        var keptAs: String?
        if let keepingOldAs {
            var attempt = 1
            while keptJournals[space.hex + ".journal" + JournalRewrite.suffix(keepingOldAs, attempt: attempt)] != nil {
                attempt += 1
            }
            keptAs = JournalRewrite.suffix(keepingOldAs, attempt: attempt)
            keptJournals[space.hex + ".journal" + keptAs!] = old.records
        }
        stored[space]!.records = records
        stored[space]!.version = version
        locate(space)
        let size = { (list: [[UInt8]]) in list.reduce(0) { $0 + $1.count + JournalFraming.frameOverhead } }
        return JournalRewrite(shrunk: UInt64(max(0, size(old.records) - size(records))), keptAs: keptAs)
    }

    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        try await gate()
        guard stored[new] == nil else { throw .writeFailed("cannot replace \(old.hex): \(new.hex) exists already") }
        stored[new] = Space(header: header, records: records, heads: [head, nil])
        locate(new)
        pendingReplacements.append(SpaceReplacement(old: old, new: new, isSwitched: true))
    }

    public func replacements() -> [SpaceReplacement] {
        pendingReplacements
    }

    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        try await gate()
        stored[keepingNew ? replacement.old : replacement.new] = nil
        locate(keepingNew ? replacement.old : replacement.new)
        pendingReplacements.removeAll { $0 == replacement }
    }

    public func remove(_ space: SpaceID) async throws(StoreError) {
        try await gate()
        stored[space] = nil
        locate(space)
    }

    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        try await gate()
        guard let found = stored.removeValue(forKey: space) else { throw .noSuchSpace(space) }
        setAsideStored[SetAsideSpace.Name(space: space, time: time)] = found
        locate(space)
    }

    public func setAsideSpaces() -> [SetAsideSpace] {
        setAsideStored.sorted { ($0.key.time, $0.key.space.hex) < ($1.key.time, $1.key.space.hex) }.map { name, space in
            var offset = UInt64(JournalFraming.preamble.count)
            var records: [JournalReplay.Record] = []
            for bytes in space.records {
                records.append(JournalReplay.Record(offset: offset, bytes: bytes))
                offset += UInt64(bytes.count + JournalFraming.frameOverhead)
            }
            return SetAsideSpace(
                name: name, header: space.header, journal: JournalReplay(records: records, cut: nil, size: offset))
        }
    }

    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        try await gate()
        let name = SetAsideSpace.Name(space: space, time: time)
        guard stored[space] == nil, let found = setAsideStored.removeValue(forKey: name) else {
            throw .noSuchSpace(space)
        }
        stored[space] = found
        locate(space)
    }

    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        try await gate()
        let old = setAsideStored.keys.filter { $0.time < time }
        for name in old { setAsideStored[name] = nil }
        return old
    }

    /// None: only a store of files can hold a file that is not one.
    public func refusedFiles() -> [StoreError] { [] }

    public func catalog() -> [UInt8]? {
        catalogBytes
    }

    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) {
        try await gate()
        catalogBytes = bytes
    }

    public func passcodeAttempts() -> [UInt8]? {
        attemptsBytes
    }

    /// Not held or failed by the test controls: they stand for writes of items and collections.
    public func replacePasscodeAttempts(_ bytes: [UInt8]) {
        attemptsBytes = bytes
    }

    // MARK: - Test controls

    /// Every record of `space` (tests).
    public func records(of space: SpaceID) -> [[UInt8]] {
        stored[space]?.records ?? []
    }

    /// Replaces `space`'s records as someone writing the files would: no head change (tests).
    public func tamper(_ space: SpaceID, records: [[UInt8]]) {
        stored[space]?.records = records
        locate(space)
    }

    /// Makes `space`'s journal one of an older format, holding `records` (tests, fuzzing).
    public func setJournal(_ space: SpaceID, version: UInt8, records: [[UInt8]]) {
        stored[space]?.version = version
        stored[space]?.records = records
        stored[space]?.heads = [nil, nil]
        locate(space)
    }

    /// Makes the next write throw `error` (tests). Calls queue up, one failure per write.
    public func failNextWrite(with error: StoreError = .writeFailed("injected failure")) {
        pendingFailures.append(error)
    }

    /// Makes every write throw `error` until called with nil (tests).
    public func failAllWrites(with error: StoreError?) {
        failsAlways = error
    }

    /// Makes the next write wait until ``releaseHeldWrite()``, as a slow disk would (tests).
    public func holdNextWrite() {
        holdsNextWrite = true
    }

    /// Returns once a write is being held.
    public func waitUntilHolding() async {
        if heldWrite != nil { return }
        await withCheckedContinuation { holdingWaiters.append($0) }
    }

    /// Lets the held write go on.
    public func releaseHeldWrite() {
        heldWrite?.resume()
        heldWrite = nil
    }

    private func gate() async throws(StoreError) {
        if holdsNextWrite {
            holdsNextWrite = false
            await withCheckedContinuation { continuation in
                heldWrite = continuation
                for waiter in holdingWaiters { waiter.resume() }
                holdingWaiters.removeAll()
            }
        }
        if let failsAlways { throw failsAlways }
        if !pendingFailures.isEmpty { throw pendingFailures.removeFirst() }
    }

    public func snapshot() throws(StoreError) -> VaultSnapshot {
        throw .writeFailed("a vault kept in memory has no files to back up")
    }

    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?) -> String? {
        nil
    }

    public func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) throws(StoreError)
        -> StagedRestore
    {
        throw .writeFailed("a vault kept in memory cannot be restored from a backup")
    }

    public func commitRestore(_ staged: StagedRestore) throws(StoreError) {
        throw .writeFailed("a vault kept in memory cannot be restored from a backup")
    }

    public func discardRestore(_ staged: StagedRestore) {}
}
