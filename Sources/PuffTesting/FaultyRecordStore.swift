// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// A record store that forwards to another (a ``MemoryRecordStore`` by default) and can make its
/// writes fail or wait on purpose, as a full or slow disk would, and counts its appends. The
/// stores puffd ships have none of this: it lives here, in tests only.
///
/// Writes of the passcode-attempts file are neither held nor failed: the controls stand for
/// writes of items and collections.
public actor FaultyRecordStore: ForwardingRecordStore {
    public static var kind: String { "faulty" }

    public nonisolated let base: any RecordStore
    /// How many appends succeeded: each one write and one sync on disk, whatever it held.
    public private(set) var appendCount = 0
    private var pendingFailures: [StoreError] = []
    private var failsAlways: StoreError?
    private var holdsNextWrite = false
    private var heldWrite: CheckedContinuation<Void, Never>?
    private var holdingWaiters: [CheckedContinuation<Void, Never>] = []

    /// Forwards to `base`; nothing fails or waits until told.
    public init(_ base: any RecordStore = MemoryRecordStore()) {
        self.base = base
    }

    /// Makes the next write throw `error`. Calls queue up, one failure per write.
    public func failNextWrite(with error: StoreError = .writeFailed("injected failure")) {
        pendingFailures.append(error)
    }

    /// Makes every write throw `error` until called with nil.
    public func failAllWrites(with error: StoreError?) {
        failsAlways = error
    }

    /// Makes the next write wait until ``releaseHeldWrite()``, as a slow disk would.
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

    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await gate()
        try await base.replaceHeader(bytes, of: space)
    }

    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await gate()
        try await base.append(record, to: space, head: head)
        appendCount += 1
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await gate()
        try await base.append(contentsOf: records, to: space, head: head)
        appendCount += 1
    }

    /// Counts as one append in ``appendCount`` (one write, one sync on disk).
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        try await gate()
        let ticket = try await base.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
        appendCount += 1
        return ticket
    }

    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await gate()
        try await base.replaceHead(head, of: space)
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        try await gate()
        return try await base.rewrite(space, records: records, version: version, keepingOldAs: keepingOldAs)
    }

    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        try await gate()
        try await base.replaceSpace(old, with: new, header: header, records: records, head: head)
    }

    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        try await gate()
        try await base.settleReplacement(replacement, keepingNew: keepingNew)
    }

    public func remove(_ space: SpaceID) async throws(StoreError) {
        try await gate()
        try await base.remove(space)
    }

    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        try await gate()
        try await base.setAside(space, at: time)
    }

    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        try await gate()
        try await base.bringBack(space, setAsideAt: time)
    }

    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        try await gate()
        return try await base.purgeSetAside(before: time)
    }

    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) {
        try await gate()
        try await base.replaceCatalog(bytes)
    }
}
