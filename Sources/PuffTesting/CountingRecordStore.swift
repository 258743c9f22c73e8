// SPDX-License-Identifier: Apache-2.0
public import PuffStore
import Synchronization

/// A ``RecordStore`` that passes every call to another and counts the journal records it hands
/// out (``replay(_:)``): what tests of a cost (issue 27: an unlock reads no record) observe.
public actor CountingRecordStore: RecordStore {
    public static var kind: String { "counting" }

    private let inner: any RecordStore
    /// How many times a journal was read.
    public private(set) var replays = 0
    /// How many records those reads returned.
    public private(set) var recordsRead = 0

    /// How many single records were read by their locators (``RecordStore/read(_:in:)``).
    public nonisolated var locatedReads: Int { located.load(ordering: .relaxed) }
    private let located = Atomic<Int>(0)

    /// Counts the reads of `inner`.
    public init(_ inner: any RecordStore) {
        self.inner = inner
    }

    /// Sets both counts back to 0.
    public func reset() {
        replays = 0
        recordsRead = 0
        located.store(0, ordering: .relaxed)
    }

    public nonisolated var location: String? { inner.location }

    public func replay(_ space: SpaceID) async throws(StoreError) -> JournalReplay {
        let replay = try await inner.replay(space)
        replays += 1
        recordsRead += replay.records.count
        return replay
    }

    public nonisolated func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        located.add(1, ordering: .relaxed)
        return try inner.read(locator, in: space)
    }

    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        try await inner.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
    }

    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? { await inner.indexSnapshot(of: space) }
    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await inner.replaceIndexSnapshot(bytes, of: space)
    }
    /// Not counted as a replay: what an index snapshot leaves to read (the records after it).
    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? {
        try await inner.replay(space, from: offset)
    }
    public func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool {
        await inner.journalFramesAreGood(space, before: offset)
    }

    public func spaces() async throws(StoreError) -> [SpaceID] { try await inner.spaces() }
    public func header(of space: SpaceID) async throws(StoreError) -> [UInt8] { try await inner.header(of: space) }
    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await inner.replaceHeader(bytes, of: space)
    }
    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await inner.append(record, to: space, head: head)
    }
    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await inner.append(contentsOf: records, to: space, head: head)
    }
    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        try await inner.rewrite(space, records: records, version: version, keepingOldAs: keepingOldAs)
    }
    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await inner.replaceHead(head, of: space)
    }
    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        try await inner.replaceSpace(old, with: new, header: header, records: records, head: head)
    }
    public func replacements() async throws(StoreError) -> [SpaceReplacement] { try await inner.replacements() }
    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        try await inner.settleReplacement(replacement, keepingNew: keepingNew)
    }
    public func remove(_ space: SpaceID) async throws(StoreError) { try await inner.remove(space) }
    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        try await inner.setAside(space, at: time)
    }
    public func setAsideSpaces() async throws(StoreError) -> [SetAsideSpace] { try await inner.setAsideSpaces() }
    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        try await inner.bringBack(space, setAsideAt: time)
    }
    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        try await inner.purgeSetAside(before: time)
    }
    public func refusedFiles() async -> [StoreError] { await inner.refusedFiles() }
    public func catalog() async throws(StoreError) -> [UInt8]? { try await inner.catalog() }
    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) { try await inner.replaceCatalog(bytes) }
    public func passcodeAttempts() async throws(StoreError) -> [UInt8]? { try await inner.passcodeAttempts() }
    public func replacePasscodeAttempts(_ bytes: [UInt8]) async throws(StoreError) {
        try await inner.replacePasscodeAttempts(bytes)
    }
    public func snapshot() async throws(StoreError) -> VaultSnapshot { try await inner.snapshot() }
    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?)
        async throws(StoreError) -> String?
    {
        try await inner.saveSnapshot(snapshot, reason: reason, keep: keep, counting: counting)
    }
    public func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) async throws(StoreError)
        -> StagedRestore
    {
        try await inner.stageRestore(from: fd, path: path, counting: counting)
    }
    public func commitRestore(_ staged: StagedRestore) async throws(StoreError) {
        try await inner.commitRestore(staged)
    }
    public func discardRestore(_ staged: StagedRestore) async { await inner.discardRestore(staged) }

    public nonisolated func name(of object: StoreObject) -> String {
        inner.name(of: object)
    }

    public func generation(of space: SpaceID) async throws(StoreError) -> UInt64 {
        try await inner.generation(of: space)
    }
    public func pull(_ space: SpaceID) async throws(StoreError) -> PulledRecords? {
        try await inner.pull(space)
    }
    public nonisolated func sharedName(of space: SpaceID) -> String? {
        inner.sharedName(of: space)
    }
    public func sharedHeader(of space: SpaceID) async throws(StoreError) -> SharedHeader? {
        try await inner.sharedHeader(of: space)
    }
    public func adoptHeader(_ header: SharedHeader, of space: SpaceID) async throws(StoreError) -> Bool {
        try await inner.adoptHeader(header, of: space)
    }
    public nonisolated var sharedStoreKind: String? { inner.sharedStoreKind }
    public func share(_ space: SpaceID, as name: String) async throws(StoreError) {
        try await inner.share(space, as: name)
    }
    public func attach(_ name: String) async throws(StoreError) -> SpaceID {
        try await inner.attach(name)
    }
}
