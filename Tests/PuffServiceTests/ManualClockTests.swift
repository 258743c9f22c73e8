// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Testing

/// The manual clock tests sleep on: a sleep ends when time reaches it or its task is cancelled,
/// however the two interleave.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct ManualClockTests {
    /// A prompter answering at once cancels the question's timer (`ask` races them) before the
    /// timer has listed itself: the sleep must still end, or the caller hangs (seen in ExportTests).
    @Test func aSleepWhoseTaskIsCancelledBeforeItStartsEndsAtOnce() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                try await clock.sleep(until: clock.now.advanced(by: .seconds(60)))
                return "woke"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        #expect(await task.value == "cancelled")
        #expect(clock.sleeperCount == 0)
    }

    @Test func aSleepEndsWhenTimeReachesIt() async {
        let clock = ManualClock()
        let task = Task { () -> Bool in
            (try? await clock.sleep(until: clock.now.advanced(by: .seconds(5)))) != nil
        }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(5))
        #expect(await task.value, "the sleep threw instead of waking")
    }
}
