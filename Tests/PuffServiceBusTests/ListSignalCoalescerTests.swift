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
    /// A fake list source, the signals sent and trims run, all readable from any task.
    final class Harness: Sendable {
        let items = Mutex<[ItemID]>([])
        let sent = Mutex<[OutgoingMessage]>([])
        /// What happened, in order: "sent N" per signal, "trim" per trim.
        let events = Mutex<[String]>([])
        /// `released` callbacks of signals the fake bus still holds (``holdsSignals``).
        let held = Mutex<[@Sendable () -> Void]>([])
        let holdsSignals: Bool
        let clock = ManualClock()
        let window = Duration.milliseconds(100)
        let trimLength = 50

        init(holdsSignals: Bool = false) {
            self.holdsSignals = holdsSignals
        }

        func coalescer() -> ListSignalCoalescer {
            ListSignalCoalescer(
                minimumWindow: window, maximumWindow: window, clock: clock, trimLength: trimLength,
                trim: { self.events.withLock { $0.append("trim") } },
                render: { _ in
                    let items = self.items.withLock { $0 }
                    return .init(SignalEmitter.itemsChanged(in: .login, items: items, modified: 1), length: items.count)
                },
                send: { message, released in
                    self.sent.withLock { $0.append(message) }
                    let count = message.body[1].variantDictionary?["Items"]?.objectPaths?.count ?? -1
                    self.events.withLock { $0.append("sent \(count)") }
                    if self.holdsSignals { self.held.withLock { $0.append(released) } } else { released() }
                })
        }

        func add(_ number: UInt64) {
            items.withLock { $0.append(ItemID(collection: .login, number: number)) }
        }

        /// The fake bus lets go of every signal it holds.
        func release() {
            for released in held.withLock({ $0 }) { released() }
            held.withLock { $0.removeAll() }
        }

        var sentPathCounts: [Int] {
            sent.withLock { $0.map { $0.body[1].variantDictionary?["Items"]?.objectPaths?.count ?? -1 } }
        }

        var trims: Int { events.withLock { $0.filter { $0 == "trim" }.count } }

        /// Touches the list and lets its window end.
        func flush(_ coalescer: ListSignalCoalescer) async {
            coalescer.touch(.items(.login))
            #expect(await clock.waitForSleepers(1))
            clock.advance(by: window)
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

    @Test func aLongListIsTrimmedOnlyOnceTheBusHasLetGoOfIt() async throws {
        let harness = Harness(holdsSignals: true)
        let coalescer = harness.coalescer()
        for number in 1...UInt64(harness.trimLength) { harness.add(number) }
        await harness.flush(coalescer)
        #expect(await poll(limit: HangGuard.step) { harness.sentPathCounts == [50] })
        // The bus still holds the signal: its memory is not free yet, so there is nothing to trim.
        #expect(harness.trims == 0)
        harness.release()
        #expect(await poll(limit: HangGuard.step) { harness.trims == 1 })
        #expect(harness.events.withLock { $0 } == ["sent 50", "trim"])
    }

    @Test func aShortListIsNotTrimmed() async throws {
        let harness = Harness()
        let coalescer = harness.coalescer()
        for number in 1..<UInt64(harness.trimLength) { harness.add(number) }
        await harness.flush(coalescer)
        #expect(await poll(limit: HangGuard.step) { harness.sentPathCounts == [49] })
        // A long list after it is trimmed, once: the short one's flush asked for none.
        harness.add(UInt64(harness.trimLength))
        await harness.flush(coalescer)
        #expect(await poll(limit: HangGuard.step) { harness.trims == 1 })
        #expect(harness.events.withLock { $0 } == ["sent 49", "sent 50", "trim"])
    }
}
