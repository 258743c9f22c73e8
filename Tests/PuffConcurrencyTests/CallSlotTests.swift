// SPDX-License-Identifier: Apache-2.0
import PuffConcurrency
import Synchronization
import Testing

/// A call gives its slot back while it waits and takes one again after (issue 24 item 10); waits
/// of tasks it started neither give nor take once it has ended.
struct CallSlotTests {
    /// Counts what a slot gave back and took again.
    final class Gate: Sendable {
        let given = Atomic<Int>(0)
        let taken = Atomic<Int>(0)

        func slot() -> CallSlot {
            CallSlot(
                giveBack: { self.given.add(1, ordering: .relaxed) },
                takeAgain: { self.taken.add(1, ordering: .relaxed) })
        }

        var counts: [Int] { [given.load(ordering: .relaxed), taken.load(ordering: .relaxed)] }
    }

    @Test func aWaitGivesTheSlotBackForItsDurationAndTakesOneAgainAfter() async {
        let gate = Gate()
        let slot = gate.slot()
        let during = await CallSlot.$current.withValue(slot) {
            await CallSlot.released { gate.counts }
        }
        #expect(during == [1, 0], "given back before the wait ran")
        #expect(gate.counts == [1, 1], "taken again after it")
        #expect(slot.finish(), "the ended call still holds its slot")
    }

    @Test func twoWaitsAtOnceGiveOnceAndTakeOnce() async {
        let gate = Gate()
        let slot = gate.slot()
        await CallSlot.$current.withValue(slot) {
            await CallSlot.released {
                await CallSlot.released {}
                #expect(gate.counts == [1, 0], "the inner wait neither gave nor took")
            }
        }
        #expect(gate.counts == [1, 1])
    }

    @Test func outsideACallAWaitTouchesNoSlot() async {
        let gate = Gate()
        _ = gate.slot()
        await CallSlot.released {}
        #expect(gate.counts == [0, 0])
    }

    @Test func aTaskStartedByACallThatWaitsAfterTheCallEndedTouchesNoSlot() async {
        let gate = Gate()
        let slot = gate.slot()
        #expect(slot.finish())
        await CallSlot.$current.withValue(slot) {
            await Task { await CallSlot.released {} }.value
        }
        #expect(gate.counts == [0, 0])
    }

    @Test func aCallThatEndsWhileItsTaskWaitsHasAlreadyGivenItsSlotBack() async {
        let gate = Gate()
        let slot = gate.slot()
        let (stream, release) = AsyncStream.makeStream(of: Void.self)
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let waiter = CallSlot.$current.withValue(slot) {
            Task {
                await CallSlot.released {
                    didStart.yield()
                    for await _ in stream { break }
                }
            }
        }
        for await _ in started { break }
        #expect(!slot.finish(), "the slot went back when the wait began")
        release.yield()
        await waiter.value
        #expect(gate.counts == [1, 0], "nothing is taken for a call that ended")
    }
}
