// SPDX-License-Identifier: Apache-2.0
import PuffService
import Synchronization
import Testing

@testable import PuffServiceBus

/// A call that waits on a security key ends when its caller leaves the bus, before or while it
/// waits, and is untouched while the caller stays.
struct CallerDeparturesTests {
    /// A wait that lasts until its task is cancelled, saying when it started; `cancelled` is then true.
    final class Wait: Sendable {
        let started: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        let cancelled = Flag()

        init() {
            (started, continuation) = AsyncStream.makeStream()
        }

        func run() async throws -> String {
            continuation.yield()
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}  // ends only when the task is cancelled
            cancelled.set()
            throw ServiceError.hardware(.cancelled)
        }
    }

    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test func aCallWhoseCallerStaysGetsItsAnswer() async throws {
        let departures = CallerDepartures()
        departures.departed(":1.7")
        let answer = try await departures.whileCallerStays(":1.8") { "opened" }
        #expect(answer == "opened")
    }

    @Test func aCallerLeavingWhileTheKeyWaitsCancelsTheWait() async throws {
        let departures = CallerDepartures()
        let wait = Wait()
        let call = Task { try await departures.whileCallerStays(":1.9") { try await wait.run() } }
        var started = wait.started.makeAsyncIterator()
        _ = await started.next()
        departures.departed(":1.9")
        await #expect(throws: ServiceError.hardware(.cancelled)) { try await call.value }
        #expect(wait.cancelled.isSet)
    }

    @Test func aCallServedAfterItsCallerLeftIsCancelledAtOnce() async throws {
        let departures = CallerDepartures()
        departures.departed(":1.10")
        let wait = Wait()
        await #expect(throws: ServiceError.hardware(.cancelled)) {
            try await departures.whileCallerStays(":1.10") { try await wait.run() }
        }
        #expect(wait.cancelled.isSet)
    }
}
