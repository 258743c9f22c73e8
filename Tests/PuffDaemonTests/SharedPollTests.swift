// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Synchronization
import Testing

@testable import PuffDaemon

/// The poll of fleet collections (docs/design/fleet.md §0): every interval while the shared
/// stores answer, backing off to at most 5 s while one does not, back to the interval once it does.
@Suite struct SharedPollTests {
    /// Pulls counted, each answering as `reachable` says at the time.
    final class Pulls: Sendable {
        private let state = Mutex((count: 0, reachable: true))
        var count: Int { state.withLock { $0.count } }
        func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }
        func pull() -> Bool {
            state.withLock { state in
                state.count += 1
                return state.reachable
            }
        }
    }

    @Test func itPullsEachIntervalAndBacksOffToFiveSecondsWhileOffline() async throws {
        let clock = ManualClock()
        let pulls = Pulls()
        let sharedPoll = SharedPoll(interval: .seconds(1), clock: clock) { pulls.pull() }
        let task = Task { await sharedPoll.run() }
        defer { task.cancel() }

        // Advances `seconds` one at a time; says how many pulls that made.
        func run(_ seconds: Int) async throws -> Int {
            let before = pulls.count
            for _ in 0..<seconds {
                try #require(await clock.waitForSleepers(1))
                clock.advance(by: .seconds(1))
                try #require(await poll(limit: HangGuard.step) { clock.sleeperCount == 1 })
            }
            return pulls.count - before
        }
        #expect(try await run(3) == 3, "online: one pull a second")
        pulls.setReachable(false)
        #expect(try await run(1) == 1, "the pull that finds it offline")
        // Then waits of 2, 4, 5, 5 s.
        #expect(try await run(2) == 1)
        #expect(try await run(4) == 1)
        #expect(try await run(5) == 1)
        #expect(try await run(4) == 0)
        pulls.setReachable(true)
        #expect(try await run(1) == 1, "the fifth second of the 5 s wait")
        #expect(try await run(3) == 3, "back to one pull a second")
    }

    @Test func theWaitDoublesWhileOfflineUpToTheLongestAndResetsOnceReached() {
        let poll = SharedPoll(interval: .seconds(1), clock: ManualClock()) { true }
        #expect(poll.wait(after: .seconds(1), reached: false) == .seconds(2))
        #expect(poll.wait(after: .seconds(4), reached: false) == .seconds(5))
        #expect(poll.wait(after: .seconds(5), reached: false) == .seconds(5))
        #expect(poll.wait(after: .seconds(5), reached: true) == .seconds(1))
    }
}
