// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A clock that moves only when a test calls ``advance(by:)``, so timeouts are tested without waiting.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line.
    public struct Instant: InstantProtocol {
        /// Time since the clock was created.
        public var offset: Duration
        /// Creates an instant `offset` after the start.
        public init(offset: Duration) { self.offset = offset }
        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from `self` to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current manual time.
    public var now: Instant { state.withLock { $0.now } }
    /// One nanosecond; the clock only moves when told to.
    public var minimumResolution: Duration { .nanoseconds(1) }
    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until ``advance(by:)`` reaches `deadline`, or throws `CancellationError` when cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled before it is listed, the handler below found nothing to resume: the
                // flag is checked under the lock the handler takes, so one of them always sees it.
                let outcome = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        // Resume outside the lock: a woken task may call back into the clock.
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, polling) until at least `count` tasks sleep on the clock.
    ///
    /// - Returns: false when that did not happen within `limit`.
    @discardableResult
    public func waitForSleepers(_ count: Int, limit: Duration = HangGuard.step) async -> Bool {
        await poll(limit: limit) { self.sleeperCount >= count }
    }
}

/// Polls `condition` every `interval` (a millisecond unless the condition is costly, such as a
/// process to run) until it holds or `limit` of real time has passed.
public func poll(
    limit: Duration, every interval: Duration = .milliseconds(1), _ condition: @Sendable () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while clock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
