// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import PuffServiceBus
import PuffTesting
import Synchronization
import Testing

/// `PropertiesChanged{Items}` goes out once per window with the list as it is then, never once per
/// write (secret-service.md §7, "Cost at large N").
@Suite struct ListSignalCoalescerTests {
    /// A fake list source and the signals sent, both readable from any task.
    final class Harness: Sendable {
        let items = Mutex<[ItemID]>([])
        let sent = Mutex<[OutgoingMessage]>([])
        let clock = ManualClock()
        let window = Duration.milliseconds(100)

        func coalescer() -> ListSignalCoalescer {
            ListSignalCoalescer(
                minimumWindow: window, maximumWindow: window, clock: clock,
                render: { _ in SignalEmitter.itemsChanged(in: .login, items: self.items.withLock { $0 }, modified: 1) },
                send: { message in self.sent.withLock { $0.append(message) } })
        }

        func add(_ number: UInt64) {
            items.withLock { $0.append(ItemID(collection: .login, number: number)) }
        }

        var sentPathCounts: [Int] {
            sent.withLock { $0.map { $0.body[1].variantDictionary?["Items"]?.objectPaths?.count ?? -1 } }
        }
    }

    @Test func manyChangesWithinOneWindowSendOneSignalWithTheLatestList() async throws {
        let harness = Harness()
        let coalescer = harness.coalescer()
        for number in 1...50 {
            harness.add(UInt64(number))
            coalescer.touch(.items(.login))
        }
        // The flush is parked on the manual clock: nothing can be sent until time moves.
        #expect(await harness.clock.waitForSleepers(1))
        #expect(harness.sentPathCounts.isEmpty)
        harness.clock.advance(by: harness.window)
        #expect(await poll(limit: HangGuard.step) { harness.sentPathCounts == [50] })
        #expect(harness.sentPathCounts == [50])
    }

    @Test func aChangeAfterAFlushOpensANewWindow() async throws {
        let harness = Harness()
        let coalescer = harness.coalescer()
        harness.add(1)
        coalescer.touch(.items(.login))
        #expect(await harness.clock.waitForSleepers(1))
        harness.clock.advance(by: harness.window)
        #expect(await poll(limit: HangGuard.step) { harness.sentPathCounts == [1] })
        harness.add(2)
        coalescer.touch(.items(.login))
        #expect(await harness.clock.waitForSleepers(1))
        #expect(harness.sentPathCounts == [1])
        harness.clock.advance(by: harness.window)
        #expect(await poll(limit: HangGuard.step) { harness.sentPathCounts == [1, 2] })
    }
}
