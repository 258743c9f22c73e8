// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// What reads answered from the ``ReadView`` (on the bus thread in puffd) leave for the actor to
/// record: each read's audit entry and its session's use, recorded before anything that depends
/// on them, and written together (design core-reshaped §7). Bus-free: the reads are made on the
/// view, with the background flush held.
struct FastReadRecordingTests {
    static let tool = ReadViewTests.tool

    @Test func aSessionUsedOnlyOnTheBusThreadIsNotTheOneAClientAtItsLimitLoses() async throws {
        var limits = ServiceLimits()
        limits.sessionsPerClient = 3
        let fixture = try await Fixture(limits: limits)
        let item = try await fixture.store(["k": "v"], client: Fixture.bob)
        let first = try await fixture.plainSession()
        let second = try await fixture.plainSession()
        let third = try await fixture.plainSession()
        let view = fixture.service.readView
        view.flushesHeld.store(true, ordering: .relaxed)
        // Read through `first` on the view only: `second` is now the least recently used.
        #expect(view.secrets(of: [item], session: first, caller: Caller(Fixture.alice)) != nil)
        #expect(view.waitingReads == 1)
        let fourth = try await fixture.plainSession()
        #expect(await fixture.service.hasSession(first), "the session just read through stays")
        #expect(await !fixture.service.hasSession(second), "the least recently used one went")
        for session in [third, fourth] { #expect(await fixture.service.hasSession(session)) }
    }

    @Test func readsOnTheLaneAreLoggedAfterTheBusThreadReadsMadeBeforeThem() async throws {
        let fixture = try await Fixture.persistent()
        let first = try await fixture.store(["a": "1"], label: "First")
        let second = try await fixture.store(["a": "2"], label: "Second")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        view.flushesHeld.store(true, ordering: .relaxed)
        #expect(view.secrets(of: [first], session: session, caller: Self.tool) != nil)
        _ = try await fixture.service.secret(of: second, session: session, caller: Self.tool)
        #expect(view.secrets(of: [first], session: session, caller: Self.tool) != nil)
        _ = try await fixture.service.secrets(for: [second], session: session, caller: Self.tool)
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.label) == ["First", "Second", "First", "Second"])
    }

    @Test func manyReadsAreWrittenToTheLogInOneWriteAfterOneRemovalCheck() async throws {
        let store = RemovalCountingAuditStore()
        let fixture = try await Fixture.persistent(auditStore: store)
        let id = try await fixture.store(["a": "1"], label: "Batched")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        view.flushesHeld.store(true, ordering: .relaxed)
        for _ in 0..<50 { #expect(view.secrets(of: [id], session: session, caller: Self.tool) != nil) }
        let (writes, checks) = (store.writes.load(ordering: .relaxed), store.checks.load(ordering: .relaxed))
        await fixture.service.flushFastReads()
        #expect(store.writes.load(ordering: .relaxed) - writes == 1, "the 50 entries went in one write")
        #expect(store.checks.load(ordering: .relaxed) - checks == 1, "the log was checked for removal once")
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.label) == Array(repeating: "Batched", count: 50), "each read has its own entry")
    }
}

/// A memory audit store that counts its writes and its removal checks.
private final class RemovalCountingAuditStore: AuditStore {
    let inner = MemoryAuditStore()
    let writes = Atomic<Int>(0)
    let checks = Atomic<Int>(0)

    var limit: Int { inner.limit }

    func append(_ entries: [[UInt8]], to space: SpaceID) throws(StoreError) {
        try inner.append(entries, to: space)
        writes.add(1, ordering: .relaxed)
    }

    func entries(of space: SpaceID) throws(StoreError) -> AuditReplay { inner.entries(of: space) }
    func sync() throws(StoreError) { inner.sync() }
    func closeLog(_ space: SpaceID) { inner.closeLog(space) }
    func remove(_ space: SpaceID) throws(StoreError) { inner.remove(space) }

    func wasRemoved(_ space: SpaceID) -> Bool {
        checks.add(1, ordering: .relaxed)
        return inner.wasRemoved(space)
    }
}
