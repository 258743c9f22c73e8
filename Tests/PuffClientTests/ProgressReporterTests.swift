// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Synchronization
import Testing

@testable import PuffClient

/// The progress reporter on a manual clock: what the bar and the JSON lines show (count, rate,
/// time left), how often it redraws, and that it erases the bar at the end.
struct ProgressReporterTests {
    /// Everything a reporter wrote, in order.
    final class Written: Sendable {
        private let texts = Mutex<[String]>([])
        func append(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    private func reporter(_ style: ProgressReporter.Style, _ clock: ManualClock, _ written: Written, columns: Int = 100)
        -> ProgressReporter
    {
        ProgressReporter(
            operation: "compact", style: style, write: { written.append($0) }, columns: { columns },
            now: { clock.now.offset })
    }

    private func update(_ done: UInt64, of total: UInt64, _ unit: String = "records") -> ProgressUpdate {
        ProgressUpdate(done: done, total: total, unit: unit)
    }

    @Test func theBarShowsCountRateAndTimeLeftMeasuredOnTheClock() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.bar, clock, written)
        progress.update(update(0, of: 10_000))
        clock.advance(by: .seconds(2))
        progress.update(update(4_000, of: 10_000))
        let drawn = written.all
        #expect(drawn.count == 2)
        #expect(
            drawn[0] == "\r\u{1B}[Kcompact [------------------------------]  0%  0/10,000 records  --/s  --:-- left")
        // 4,000 records in 2 s: 2,000/s, and 6,000 left take 3 s.
        #expect(
            drawn[1]
                == "\r\u{1B}[Kcompact [############------------------]  40%  4,000/10,000 records  2,000/s  0:03 left")
    }

    @Test func redrawsComeAtMostTenASecond() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.bar, clock, written)
        for done in 0..<100 {
            progress.update(update(UInt64(done), of: 100))
            clock.advance(by: .milliseconds(10))
        }
        // One second of updates every 10 ms: a redraw every 100 ms.
        #expect(written.all.count == 10)
    }

    @Test func finishErasesTheBarOnceAndIgnoresLaterUpdates() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.bar, clock, written)
        progress.update(update(1, of: 2))
        progress.finish()
        progress.finish()
        clock.advance(by: .seconds(1))
        progress.update(update(2, of: 2))
        #expect(written.all.count == 2)
        #expect(written.all.last == "\r\u{1B}[K")
    }

    @Test func finishWithoutABarDrawnWritesNothing() {
        let written = Written()
        let progress = reporter(.bar, ManualClock(), written)
        progress.finish()
        #expect(written.all.isEmpty)
    }

    @Test func noStyleShowsNothing() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.none, clock, written)
        progress.update(update(1, of: 2))
        clock.advance(by: .seconds(1))
        progress.update(update(2, of: 2))
        progress.finish()
        #expect(written.all.isEmpty)
    }

    @Test func jsonLinesCarryTheNumbersAndTheLastUpdateAlwaysGetsOne() throws {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.json, clock, written)
        progress.update(update(0, of: 300))
        clock.advance(by: .seconds(1))
        progress.update(update(100, of: 300))
        clock.advance(by: .milliseconds(10))
        progress.update(update(200, of: 300))
        clock.advance(by: .milliseconds(10))
        progress.update(update(300, of: 300))
        progress.finish()
        let lines = written.all
        #expect(lines.count == 3, "the update 10 ms after the last line is skipped, the last is not")
        #expect(lines.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\u{1B}") })
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: [String: Any]])
        }
        #expect(objects[0]["progress"]?["done"] as? Int == 0)
        #expect(objects[0]["progress"]?["rate"] == nil)
        #expect(objects[1]["progress"]?["done"] as? Int == 100)
        #expect(objects[1]["progress"]?["total"] as? Int == 300)
        #expect(objects[1]["progress"]?["unit"] as? String == "records")
        #expect(objects[1]["progress"]?["operation"] as? String == "compact")
        #expect(objects[1]["progress"]?["rate"] as? Double == 100)
        #expect(objects[1]["progress"]?["seconds_left"] as? Int == 2)
        #expect(objects[2]["progress"]?["done"] as? Int == 300)
        #expect(objects[2]["progress"]?["seconds_left"] as? Int == 0)
    }

    @Test func aNarrowTerminalGetsNoBarAndNoLineLongerThanItIsWide() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.bar, clock, written, columns: 40)
        progress.update(update(5, of: 10))
        let line = written.all[0].dropFirst(ProgressReporter.clearLine.count)
        #expect(line.count == 39)
        #expect(!line.contains("["))
        #expect(line.hasPrefix("compact  50%  5/10 records"))
    }

    @Test func bytesAreShownInBinaryUnits() {
        let clock = ManualClock()
        let written = Written()
        let progress = reporter(.bar, clock, written)
        progress.update(update(0, of: 8 << 20, "bytes"))
        clock.advance(by: .seconds(1))
        progress.update(update(3 << 20, of: 8 << 20, "bytes"))
        #expect(written.all[1].hasSuffix("37%  3.0 MiB/8.0 MiB  3.0 MiB/s  0:02 left"))
    }

    @Test func theOperationNameIsShownEscaped() {
        let written = Written()
        let progress = ProgressReporter(
            operation: "x\u{1B}[2J", style: .bar, write: { written.append($0) }, columns: { 100 }, now: { .zero })
        progress.update(update(0, of: 1))
        #expect(written.all[0].filter { $0 == "\u{1B}" }.count == 1, "only the reporter's own erase sequence")
    }

    @Test func timeLeftReadsAsAClock() {
        #expect(ProgressLine.clock(7) == "0:07")
        #expect(ProgressLine.clock(600) == "10:00")
        #expect(ProgressLine.clock(3723) == "1:02:03")
    }
}
