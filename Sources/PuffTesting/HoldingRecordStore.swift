// SPDX-License-Identifier: Apache-2.0
public import PuffStore
import Synchronization

/// A record store that forwards to another and can hold the vault's load: while held,
/// ``spaces()`` (the load's first step) waits until ``release()``. It counts every call, so a
/// test can see that nothing touched the vault (a service made with ``VaultLoading/later``).
/// Whole-journal reads can be held or failed too (an unlock under way).
public final class HoldingRecordStore: RecordStore {
    public static var kind: String { "holding" }

    /// Where calls of one kind wait while it is held.
    private struct Gate {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private struct State {
        var loads = Gate()
        var checks = Gate()
        var replays = Gate()
        var calls = 0
        var wholeReplays = 0
        var frameChecks = 0
        var replayFailure: StoreError?
    }

    private let base: any RecordStore
    private let state = Mutex(State())

    /// Forwards to `base`; nothing is held until ``hold()``.
    public init(_ base: any RecordStore) {
        self.base = base
    }

    /// Calls made to the store so far.
    public var calls: Int { state.withLock { $0.calls } }

    /// Journals read whole (``replay(_:)``), not from an index snapshot's end.
    public var wholeReplays: Int { state.withLock { $0.wholeReplays } }

    /// Journal frame checks asked for (``journalFramesAreGood(_:before:)``), held or not.
    public var frameChecks: Int { state.withLock { $0.frameChecks } }

    /// Whether a frame check is parked.
    public var isHoldingCheck: Bool { state.withLock { !$0.checks.waiting.isEmpty } }

    /// From now on ``journalFramesAreGood(_:before:)`` waits for ``releaseChecks()``.
    public func holdChecks() { state.withLock { $0.checks.held = true } }

    /// Lets held frame checks go on.
    public func releaseChecks() { open(\.checks) }

    /// How many whole-journal reads (an unlock's, say) are parked.
    public var replaysHolding: Int { state.withLock { $0.replays.waiting.count } }

    /// From now on ``replay(_:)`` waits for ``releaseReplays()``.
    public func holdReplays() { state.withLock { $0.replays.held = true } }

    /// Lets held whole-journal reads go on.
    public func releaseReplays() { open(\.replays) }

    /// Makes the next ``replay(_:)`` throw `error` at once, held or not (a read error).
    public func failNextReplay(with error: StoreError) {
        state.withLock { $0.replayFailure = error }
    }

    /// Whether a load is parked in ``spaces()``.
    public var isHolding: Bool { state.withLock { !$0.loads.waiting.isEmpty } }

    /// From now on ``spaces()`` waits for ``release()``.
    public func hold() { state.withLock { $0.loads.held = true } }

    /// Lets the held load go on.
    public func release() { open(\.loads) }

    /// Lets what waits at `gate` go on, and lets later calls through.
    private func open(_ gate: WritableKeyPath<State, Gate>) {
        let waiting = state.withLock { state in
            state[keyPath: gate].held = false
            defer { state[keyPath: gate].waiting = [] }
            return state[keyPath: gate].waiting
        }
        for each in waiting { each.resume() }
    }

    /// Returns once `gate` is not held (at once when it is not).
    private func pass(_ gate: WritableKeyPath<State, Gate>) async {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                if state[keyPath: gate].held { state[keyPath: gate].waiting.append(continuation) }
                return state[keyPath: gate].held
            }
            if !wait { continuation.resume() }
        }
    }

    private func count() {
        state.withLock { $0.calls += 1 }
    }

    public func spaces() async throws(StoreError) -> [SpaceID] {
        count()
        await pass(\.loads)
        return try await base.spaces()
    }

    public func header(of space: SpaceID) async throws(StoreError) -> [UInt8] {
        count()
        return try await base.header(of: space)
    }

    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        count()
        try await base.replaceHeader(bytes, of: space)
    }

    public func replay(_ space: SpaceID) async throws(StoreError) -> JournalReplay {
        count()
        let failure = state.withLock { state in
            state.wholeReplays += 1
            defer { state.replayFailure = nil }
            return state.replayFailure
        }
        if let failure { throw failure }
        await pass(\.replays)
        return try await base.replay(space)
    }

    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        count()
        try await base.append(record, to: space, head: head)
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        count()
        try await base.append(contentsOf: records, to: space, head: head)
    }

    /// Not held: a read of one record stands for no write and no start-up step.
    public func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        try base.read(locator, in: space)
    }

    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        count()
        return try await base.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
    }

    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        count()
        return try await base.rewrite(space, records: records, version: version, keepingOldAs: keepingOldAs)
    }

    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        count()
        try await base.replaceHead(head, of: space)
    }

    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        count()
        try await base.replaceSpace(old, with: new, header: header, records: records, head: head)
    }

    public func replacements() async throws(StoreError) -> [SpaceReplacement] {
        count()
        return try await base.replacements()
    }

    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        count()
        try await base.settleReplacement(replacement, keepingNew: keepingNew)
    }

    public func remove(_ space: SpaceID) async throws(StoreError) {
        count()
        try await base.remove(space)
    }

    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        count()
        try await base.setAside(space, at: time)
    }

    public func setAsideSpaces() async throws(StoreError) -> [SetAsideSpace] {
        count()
        return try await base.setAsideSpaces()
    }

    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        count()
        try await base.bringBack(space, setAsideAt: time)
    }

    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        count()
        return try await base.purgeSetAside(before: time)
    }

    public func refusedFiles() async -> [StoreError] {
        count()
        return await base.refusedFiles()
    }

    public func catalog() async throws(StoreError) -> [UInt8]? {
        count()
        return try await base.catalog()
    }

    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) {
        count()
        try await base.replaceCatalog(bytes)
    }

    public func passcodeAttempts() async throws(StoreError) -> [UInt8]? {
        count()
        return try await base.passcodeAttempts()
    }

    public func replacePasscodeAttempts(_ bytes: [UInt8]) async throws(StoreError) {
        count()
        try await base.replacePasscodeAttempts(bytes)
    }

    public var location: String? { base.location }

    public func snapshot() async throws(StoreError) -> VaultSnapshot {
        count()
        return try await base.snapshot()
    }

    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?)
        async throws(StoreError) -> String?
    {
        count()
        return try await base.saveSnapshot(snapshot, reason: reason, keep: keep, counting: counting)
    }

    public func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) async throws(StoreError)
        -> StagedRestore
    {
        count()
        return try await base.stageRestore(from: fd, path: path, counting: counting)
    }

    public func commitRestore(_ staged: StagedRestore) async throws(StoreError) {
        count()
        try await base.commitRestore(staged)
    }

    public func discardRestore(_ staged: StagedRestore) async {
        count()
        await base.discardRestore(staged)
    }

    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? {
        count()
        return await base.indexSnapshot(of: space)
    }

    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        count()
        try await base.replaceIndexSnapshot(bytes, of: space)
    }

    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? {
        count()
        return try await base.replay(space, from: offset)
    }

    public func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool {
        count()
        state.withLock { $0.frameChecks += 1 }
        await pass(\.checks)
        return await base.journalFramesAreGood(space, before: offset)
    }

    public func name(of object: StoreObject) -> String {
        base.name(of: object)
    }

    public func generation(of space: SpaceID) async throws(StoreError) -> UInt64 {
        try await base.generation(of: space)
    }
}
