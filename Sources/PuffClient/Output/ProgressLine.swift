// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// The text of one progress report: the terminal bar and the `--json` line.
enum ProgressLine {
    /// `compact [#####-----]  50%  1,000/2,000 records  400/s  0:03 left`, cut to `columns - 1`
    /// characters (a line that wraps could not be erased); the bar is left out when narrow.
    static func bar(_ operation: String, _ update: ProgressUpdate, rate: Double?, columns: Int) -> String {
        let fraction = update.total > 0 ? min(Double(update.done) / Double(update.total), 1) : 0
        let percent = "\(Int(fraction * 100))%"
        let counts =
            "\(amount(update.done, update.unit))/\(amount(update.total, update.unit))"
            + (update.unit == "bytes" || update.unit.isEmpty ? "" : " \(update.unit)")
        let speed = rate.map { "\(amount(UInt64($0.rounded()), update.unit))/s" } ?? "--/s"
        let left = secondsLeft(update, rate: rate).map { "\(clock($0)) left" } ?? "--:-- left"
        let tail = "  \(percent)  \(counts)  \(speed)  \(left)"
        let room = columns - 1 - operation.count - 3 - tail.count
        let width = min(room, 30)
        var line = operation
        if width >= 5 {
            let filled = Int((fraction * Double(width)).rounded(.down))
            line += " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
        }
        line += tail
        return String(line.prefix(max(columns - 1, 0)))
    }

    /// `{"progress":{"done":1000,"operation":"compact","rate":400,"seconds_left":3,"total":2000,"unit":"records"}}`;
    /// `rate` and `seconds_left` only once measured.
    static func json(_ operation: String, _ update: ProgressUpdate, rate: Double?) -> String {
        struct Line: Encodable {
            struct Progress: Encodable {
                var operation: String
                var done: UInt64
                var total: UInt64
                var unit: String
                var rate: Double?
                var seconds_left: UInt64?
            }
            var progress: Progress
        }
        let line = Line(
            progress: .init(
                operation: operation, done: update.done, total: update.total, unit: update.unit,
                rate: rate.map { ($0 * 10).rounded() / 10 }, seconds_left: secondsLeft(update, rate: rate)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings and numbers are encoded, which cannot fail.
        return String(decoding: try! encoder.encode(line), as: UTF8.self)
    }

    /// Whole seconds until `total` at `rate`; nil while the rate is unknown.
    static func secondsLeft(_ update: ProgressUpdate, rate: Double?) -> UInt64? {
        guard update.done < update.total else { return update.total > 0 ? 0 : nil }
        guard let rate, rate > 0 else { return nil }
        return UInt64((Double(update.total - update.done) / rate).rounded(.up))
    }

    /// `7` → `0:07`, `3723` → `1:02:03`.
    static func clock(_ seconds: UInt64) -> String {
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// A count as people read it: bytes in KiB/MiB/GiB with one decimal, other units grouped by
    /// thousands (`12,345`).
    static func amount(_ value: UInt64, _ unit: String) -> String {
        guard unit == "bytes" else { return grouped(value) }
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var scaled = Double(value)
        var index = 0
        while scaled >= 1024, index < units.count - 1 {
            scaled /= 1024
            index += 1
        }
        if index == 0 { return "\(value) B" }
        return "\((scaled * 10).rounded(.down) / 10) \(units[index])"
    }

    private static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
