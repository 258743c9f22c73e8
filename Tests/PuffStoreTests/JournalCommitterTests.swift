// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import PuffStore

/// Stands in for `fdatasync`: counts each flush per file, can hold the first journal (or head)
/// flush until released, and can fail a chosen one; logs flushes and what the test notes, in order.
final class SyncProbe: Sendable {
    private struct State {
        var journalFlushes = 0
        var headFlushes = 0
        var log: [String] = []
        var held: CheckedContinuation<Void, Never>?
        var isHeld = false
        /// Who waits for a line in the log.
        var watchers: [(line: String, waiter: CheckedContinuation<Void, Never>)] = []

        mutating func append(_ line: String) -> [CheckedContinuation<Void, Never>] {
            log.append(line)
            let due = watchers.filter { $0.line == line }.map(\.waiter)
            watchers.removeAll { $0.line == line }
            return due
        }
    }

    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)
    private let holdsFirst: Bool
    private let holdsFirstHead: Bool
    private let failsJournalFlush: Int?

    /// - Parameters:
    ///   - holdsFirst: Whether the first journal flush waits for ``release()``.
    ///   - holdsFirstHead: Whether the first head flush waits for ``release()``.
    ///   - failsJournalFlush: Which journal flush (1 = the first) returns EIO.
    init(holdsFirst: Bool, holdsFirstHead: Bool = false, failsJournalFlush: Int? = nil) {
        self.holdsFirst = holdsFirst
        self.holdsFirstHead = holdsFirstHead
        self.failsJournalFlush = failsJournalFlush
    }

    var journalFlushes: Int { state.withLock { $0.journalFlushes } }
    var headFlushes: Int { state.withLock { $0.headFlushes } }
    var log: [String] { state.withLock { $0.log } }

    func note(_ line: String) {
        for waiter in state.withLock({ $0.append(line) }) { waiter.resume() }
    }

    /// Returns once `line` is in the log.
    func until(_ line: String) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state -> Bool in
                if state.log.contains(line) { return true }
                state.watchers.append((line, waiter))
                return false
            }
            if already { waiter.resume() }
        }
    }

    var sync: JournalCommitter.Sync {
        { [self] fd, target in flush(fd, target) }
    }

    private func flush(_ fd: Int32, _ target: JournalCommitter.Target) -> Int32 {
        guard case .journal = target else { return flushHead(fd) }
        let (count, waiter) = state.withLock { state -> (Int, CheckedContinuation<Void, Never>?) in
            state.journalFlushes += 1
            _ = state.append("journal flush \(state.journalFlushes) started")
            guard holdsFirst, state.journalFlushes == 1 else { return (state.journalFlushes, nil) }
            state.isHeld = true
            let waiter = state.held
            state.held = nil
            return (state.journalFlushes, waiter)
        }
        waiter?.resume()
        if holdsFirst, count == 1 { gate.wait() }
        note("journal flush \(count) returned")
        if count == failsJournalFlush {
            errno = EIO
            return -1
        }
        return fdatasync(fd)
    }

    private func flushHead(_ fd: Int32) -> Int32 {
        let (count, waiter) = state.withLock { state -> (Int, CheckedContinuation<Void, Never>?) in
            state.headFlushes += 1
            _ = state.append("head flush \(state.headFlushes) started")
            guard holdsFirstHead, state.headFlushes == 1 else { return (state.headFlushes, nil) }
            state.isHeld = true
            defer { state.held = nil }
            return (state.headFlushes, state.held)
        }
        waiter?.resume()
        if holdsFirstHead, count == 1 { gate.wait() }
        let result = fdatasync(fd)
        note("head flush \(count) returned")
        return result
    }

    /// Returns once the first journal (or head) flush has started and is held.
    func untilHeld() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state -> Bool in
                if state.isHeld { return true }
                state.held = waiter
                return false
            }
            if already { waiter.resume() }
        }
    }

    func release() { gate.signal() }
}

/// The journal committer (design core-reshaped §6): appends queued while a flush runs share the
/// next one, nobody hears "durable" before the flush of their record returned, and a failed flush
/// fails its whole group and leaves the journal where it was.
struct JournalCommitterTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-commit-\(UUID().uuidString)").path
    let space = SpaceID.random()

    @Test func eightAppendsQueuedWhileAFlushIsHeldCostTwoJournalFlushes() async throws {
        let probe = SyncProbe(holdsFirst: true)
        let store = try FileRecordStore(
            folder: folder, sync: probe.sync, headFlush: .init(idle: .zero, atMost: .seconds(3600)))
        try await store.replaceHeader([1], of: space)
        let first = try await store.enqueueAppend(contentsOf: [[0]], to: space, head: [0xA0], expecting: nil)
        await probe.untilHeld()
        var tickets = [first]
        for n in 1..<8 {
            tickets.append(
                try await store.enqueueAppend(
                    contentsOf: [[UInt8(n)]], to: space, head: [0xA0 + UInt8(n)], expecting: nil))
        }
        #expect(store.committer.queued == 7, "the seven wait behind the held flush")
        #expect(tickets.allSatisfy { $0.outcome == nil }, "nobody is told durable while the first flush is held")
        probe.release()
        await withTaskGroup(of: Void.self) { group in
            for (n, ticket) in tickets.enumerated() {
                group.addTask {
                    try? await ticket.durable()
                    probe.note("append \(n) durable")
                }
            }
        }
        #expect(tickets.allSatisfy { $0.outcome.map { (try? $0.get()) != nil } == true })
        #expect(probe.journalFlushes == 2, "the held flush, then one for the seven queued behind it")
        let log = probe.log
        let firstReturned = try #require(log.firstIndex(of: "journal flush 1 returned"))
        let secondReturned = try #require(log.firstIndex(of: "journal flush 2 returned"))
        #expect(try #require(log.firstIndex(of: "append 0 durable")) > firstReturned)
        for n in 1..<8 {
            #expect(try #require(log.firstIndex(of: "append \(n) durable")) > secondReturned, "append \(n)")
        }
        #expect(try await store.replay(space).records.map(\.bytes) == (0..<8).map { [UInt8($0)] })
    }

    @Test func aFailedFlushFailsItsWholeGroupAndLeavesTheJournalAtItsLastDurableEnd() async throws {
        let probe = SyncProbe(holdsFirst: true, failsJournalFlush: 2)
        let store = try FileRecordStore(folder: folder, sync: probe.sync)
        try await store.replaceHeader([1], of: space)
        let first = try await store.enqueueAppend(contentsOf: [[0]], to: space, head: [0xA0], expecting: 0)
        await probe.untilHeld()
        var group: [AppendTicket] = []
        for n in 1..<8 {
            group.append(try await store.enqueueAppend(contentsOf: [[UInt8(n)]], to: space, head: nil, expecting: 0))
        }
        probe.release()
        try await first.durable()
        for ticket in group {
            await #expect(
                throws: StoreError.writeFailed(
                    "cannot fsync \(folder)/\(space.hex).journal: \(String(cString: strerror(EIO)))")
            ) {
                try await ticket.durable()
            }
            #expect(ticket.generation == 1, "the failure moved the journal on a generation")
        }
        #expect(try await store.replay(space).records.map(\.bytes) == [[0]])

        // Queued for the journal as it was before the failure was seen: refused, not appended
        // after a record that is not there.
        let stale = try await store.enqueueAppend(contentsOf: [[9]], to: space, head: nil, expecting: 0)
        await #expect(throws: StoreError.staleGeneration(space, expected: 0, current: 1)) {
            try await stale.durable()
        }
        let next = try await store.enqueueAppend(contentsOf: [[8]], to: space, head: nil, expecting: 1)
        try await next.durable()
        #expect(try await store.replay(space).records.map(\.bytes) == [[0], [8]])
    }

    /// The head's flush is off the reply path and off the next group's (design core-reshaped §6,
    /// §13): an append is durable once its records are flushed and its head written, and heads are
    /// flushed once appends pause, so a single client's writes cost one flush each. Only the head
    /// file's first write is flushed at once: the file may be new, and must not be lost.
    @Test func neitherAReplyNorTheNextGroupWaitsForTheHeadFlushWhichWaitsForAppendsToPause() async throws {
        let probe = SyncProbe(holdsFirst: false)
        let store = try FileRecordStore(
            folder: folder, sync: probe.sync, headFlush: .init(idle: nil, atMost: .seconds(3600)))
        try await store.replaceHeader([1], of: space)
        try await store.enqueueAppend(contentsOf: [[0]], to: space, head: [0xA0], expecting: nil).durable()
        #expect(try await store.headSlots(space) == [[0xA0]], "its head is written (not flushed) before it is durable")
        for n in 1...2 {
            try await store.enqueueAppend(contentsOf: [[UInt8(n)]], to: space, head: [0xA0 + UInt8(n)], expecting: nil)
                .durable()
        }
        #expect(
            try await store.headSlots(space) == [[0xA2], [0xA0]],
            "the later heads go to the same slot: the other keeps the newest flushed one")
        #expect(probe.journalFlushes == 3)
        #expect(probe.headFlushes == 1, "no head flush between the groups after the file's first")
        #expect(
            try #require(probe.log.firstIndex(of: "head flush 1 returned"))
                < (try #require(probe.log.firstIndex(of: "journal flush 2 started"))),
            "the new head file's first head is flushed at once")

        await store.flushHeads()
        #expect(probe.headFlushes == 2, "a clean stop flushes the head")
        let log = probe.log
        #expect(
            try #require(log.firstIndex(of: "head flush 2 started"))
                > (try #require(log.firstIndex(of: "journal flush 3 returned"))))
    }

    @Test func aHeadIsFlushedOnceNoAppendFollowsAndTheNextGoesToTheOtherSlot() async throws {
        let probe = SyncProbe(holdsFirst: false)
        let store = try FileRecordStore(
            folder: folder, sync: probe.sync, headFlush: .init(idle: .zero, atMost: .seconds(3600)))
        try await store.replaceHeader([1], of: space)
        try await store.enqueueAppend(contentsOf: [[0]], to: space, head: [0xA0], expecting: nil).durable()
        await probe.until("head flush 1 returned")
        try await store.enqueueAppend(contentsOf: [[1]], to: space, head: [0xA1], expecting: nil).durable()
        await probe.until("head flush 2 returned")
        #expect(Set(try await store.headSlots(space)) == [[0xA0], [0xA1]], "both slots: the newest and the one before")
    }

    @Test func aHeadUnflushedForItsLongestIsFlushedWhileAppendsKeepComing() async throws {
        let probe = SyncProbe(holdsFirst: true)
        let store = try FileRecordStore(folder: folder, sync: probe.sync, headFlush: .init(idle: nil, atMost: .zero))
        try await store.replaceHeader([1], of: space)
        let first = try await store.enqueueAppend(contentsOf: [[0]], to: space, head: [0xA0], expecting: nil)
        await probe.untilHeld()
        let second = try await store.enqueueAppend(contentsOf: [[1]], to: space, head: [0xA1], expecting: nil)
        probe.release()
        try await first.durable()
        try await second.durable()
        await probe.until("head flush 2 returned")
        let log = probe.log
        #expect(
            try #require(log.firstIndex(of: "head flush 1 returned"))
                < (try #require(log.firstIndex(of: "journal flush 2 started"))),
            "the first group's head is flushed though the second was already queued")
    }
}
