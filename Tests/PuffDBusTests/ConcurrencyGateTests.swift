// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Testing

@testable import PuffDBus

/// The call gate: room is handed to waiters in arrival order, and comes back when nobody waits.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes))) struct ConcurrencyGateTests {
    /// The order in which waiters got through.
    actor Admissions {
        private(set) var order: [Int] = []
        func admit(_ waiter: Int) { order.append(waiter) }
    }

    @Test func waitersGetTheRoomInTheOrderTheyArrived() async {
        let gate = ConcurrencyGate(width: 1)
        let admissions = Admissions()
        await gate.enter()
        var tasks: [Task<Void, Never>] = []
        for waiter in 1...4 {
            tasks.append(
                Task {
                    await gate.enter()
                    await admissions.admit(waiter)
                })
            // Each waiter is queued before the next one starts, so arrival order is known.
            #expect(await poll(limit: HangGuard.step) { gate.waiting == waiter }, "waiter \(waiter) did not queue")
        }
        for through in 1...4 {
            gate.leave()
            #expect(await poll(limit: HangGuard.step) { await admissions.order.count == through })
        }
        for task in tasks { await task.value }
        #expect(await admissions.order == [1, 2, 3, 4])
        #expect(gate.waiting == 0)
    }

    @Test func roomGivenBackWithNobodyWaitingLetsTheNextCallerStraightIn() async {
        let gate = ConcurrencyGate(width: 2)
        await gate.enter()
        await gate.enter()
        gate.leave()
        await gate.enter()
        #expect(gate.waiting == 0)
        let late = Task { await gate.enter() }
        #expect(await poll(limit: HangGuard.step) { gate.waiting == 1 }, "a full gate let a third caller in")
        gate.leave()
        await late.value
        #expect(gate.waiting == 0)
    }
}
