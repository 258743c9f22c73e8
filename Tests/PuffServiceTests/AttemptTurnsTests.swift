// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Synchronization
import Testing

@testable import PuffService

/// A collection's passcode-attempt turn passes to those waiting for it in arrival order.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes))) struct AttemptTurnsTests {
    /// The order in which waiters got the turn.
    actor Order {
        private(set) var taken: [Int] = []
        func took(_ waiter: Int) { taken.append(waiter) }
    }

    /// The turns, shared with the waiting tasks.
    final class Shared: Sendable {
        let turns = Mutex(AttemptTurns())
    }

    @Test func theTurnPassesToWaitersInTheOrderTheyArrived() async {
        let shared = Shared()
        let order = Order()
        #expect(shared.turns.withLock { $0.take("login") })
        var tasks: [Task<Void, Never>] = []
        for waiter in 1...4 {
            tasks.append(
                Task {
                    await withCheckedContinuation { waiting in shared.turns.withLock { $0.enqueue("login", waiting) } }
                    await order.took(waiter)
                })
            // Each waiter is queued before the next one starts, so arrival order is known.
            #expect(await poll(limit: HangGuard.step) { shared.turns.withLock { $0.waiting("login") } == waiter })
        }
        for given in 1...4 {
            shared.turns.withLock { $0.give("login") }?.resume()
            #expect(await poll(limit: HangGuard.step) { await order.taken.count == given })
        }
        for task in tasks { await task.value }
        #expect(await order.taken == [1, 2, 3, 4])
        #expect(shared.turns.withLock { $0.give("login") } == nil, "the last holder gives the turn back free")
        #expect(shared.turns.withLock { $0.take("login") })
    }
}
