// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The same ``RecordStore`` in process memory: for `puffd --ephemeral` (and `[vault] store =
/// "memory"`), and as the base of tests. It has no test controls of its own: PuffTesting's
/// decorators (`FaultyRecordStore` and the tampering helpers) wrap it, so the store a daemon
/// ships cannot be made to fail or be altered on purpose. Its appends never fail part-way, so its
/// journals stay at generation 0 (``RecordStore/generation(of:)``); an append expecting another
/// is refused.
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
    /// Journals a rewrite kept aside, by their name.
    private var keptJournals: [String: [[UInt8]]] = [:]

    /// An empty store.
    public init() {}

    public nonisolated var location: String? { nil }

    public nonisolated func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        let found = located.withLock { $0[space]?.records[locator.offset] }
        guard let found, found.count == Int(locator.length) else {
            throw .damaged(
                file: name(of: .journal(space)), offset: locator.offset,
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

    /// Appends at once, before returning a settled ticket: this store has no queue of its own,
    /// so its writes stay one at a time. Compare-and-set: refused, with nothing written, when
    /// `generation` is not the journal's (always 0 here).
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        if let generation, generation != 0 { throw .staleGeneration(space, expected: generation, current: 0) }
        let offset = try await appendReturningOffset(records, to: space, head: head)
        return AppendTicket(settled: .success(()), generation: 0, offset: offset)
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        _ = try await appendReturningOffset(records, to: space, head: head)
    }

    /// Appends; returns where the first record's frame starts.
    private func appendReturningOffset(_ records: [[UInt8]], to space: SpaceID, head: [UInt8]?)
        async throws(StoreError) -> UInt64
    {
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
        return offset
    }

    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        guard stored[space] != nil else { throw .noSuchSpace(space) }
        stored[space]!.heads = [head, nil]
        stored[space]!.nextSlot = 1
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        guard let old = stored[space] else { throw .noSuchSpace(space) }
        var keptAs: String?
        if let keepingOldAs {
            var attempt = 1
            while keptJournals[
                name(of: .keptJournal(space, suffix: JournalRewrite.suffix(keepingOldAs, attempt: attempt)))]
                != nil
            {
                attempt += 1
            }
            keptAs = JournalRewrite.suffix(keepingOldAs, attempt: attempt)
            keptJournals[name(of: .keptJournal(space, suffix: keptAs!))] = old.records
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
        guard stored[new] == nil else { throw .writeFailed("cannot replace \(old.hex): \(new.hex) exists already") }
        stored[new] = Space(header: header, records: records, heads: [head, nil])
        locate(new)
        pendingReplacements.append(SpaceReplacement(old: old, new: new, isSwitched: true))
    }

    public func replacements() -> [SpaceReplacement] {
        pendingReplacements
    }

    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        stored[keepingNew ? replacement.old : replacement.new] = nil
        locate(keepingNew ? replacement.old : replacement.new)
        pendingReplacements.removeAll { $0 == replacement }
    }

    public func remove(_ space: SpaceID) async throws(StoreError) {
        stored[space] = nil
        locate(space)
    }

    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
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
        let name = SetAsideSpace.Name(space: space, time: time)
        guard stored[space] == nil, let found = setAsideStored.removeValue(forKey: name) else {
            throw .noSuchSpace(space)
        }
        stored[space] = found
        locate(space)
    }

    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
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
        catalogBytes = bytes
    }

    public func passcodeAttempts() -> [UInt8]? {
        attemptsBytes
    }

    public func replacePasscodeAttempts(_ bytes: [UInt8]) {
        attemptsBytes = bytes
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
