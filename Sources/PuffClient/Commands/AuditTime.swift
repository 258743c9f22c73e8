// SPDX-License-Identifier: Apache-2.0
import Foundation

/// `puffctl audit --since TIME`: an ISO 8601 date or date and time, in local time unless it names
/// a zone, or an age counted back from now.
enum AuditTime {
    /// Seconds per age unit: `30s`, `15m`, `12h`, `2d`, `1w`.
    private static let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// Layouts tried in order; `XXXXX` takes `Z` and `+02:00`.
    private static let layouts = [
        "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mmXXXXX", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm",
        "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd",
    ]

    /// `text` as seconds since the epoch, or nil when it is neither a date nor an age.
    static func seconds(_ text: String, now: UInt64, timeZone: TimeZone = .current) -> UInt64? {
        if let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()) {
            let (age, overflow) = count.multipliedReportingOverflow(by: unit)
            return overflow ? 0 : now - min(now, age)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        for layout in layouts {
            formatter.dateFormat = layout
            if let date = formatter.date(from: text), date.timeIntervalSince1970 >= 0 {
                return UInt64(date.timeIntervalSince1970)
            }
        }
        return nil
    }

    /// `seconds` in local time, as the table shows it.
    static func shown(_ seconds: UInt64, timeZone: TimeZone = .current) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
