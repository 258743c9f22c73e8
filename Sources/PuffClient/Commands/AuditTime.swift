// SPDX-License-Identifier: Apache-2.0

/// `puffctl audit --since TIME`: an ISO 8601 date or date and time, in local time unless it names
/// a zone, or an age counted back from now.
enum AuditTime {
    /// Seconds per age unit: `30s`, `15m`, `12h`, `2d`, `1w`.
    private static let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// `text` as seconds since the epoch, or nil when it is neither a date nor an age. Dates are
    /// `YYYY-MM-DD`, optionally followed by `THH:MM[:SS]` with an optional zone (`Z`, `+02:00`)
    /// or by ` HH:MM[:SS]`, always in local time.
    static func seconds(_ text: String, now: UInt64, zone: LocalTime.Zone = .system) -> UInt64? {
        if let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()) {
            let (age, overflow) = count.multipliedReportingOverflow(by: unit)
            return overflow ? 0 : now - min(now, age)
        }
        var reader = Reader(text)
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
            let day = reader.number(2)
        else { return nil }
        var fields = LocalTime.Fields(year: year, month: month, day: day)
        var zone = zone
        if !reader.atEnd {
            let separator = reader.next()
            guard separator == "T" || separator == " ", let hour = reader.number(2), reader.take(":"),
                let minute = reader.number(2)
            else { return nil }
            (fields.hour, fields.minute) = (hour, minute)
            if reader.take(":") {
                guard let second = reader.number(2) else { return nil }
                fields.second = second
            }
            // Only the `T` forms may name a zone.
            if separator == "T", !reader.atEnd {
                guard let east = reader.zone() else { return nil }
                zone = .offset(east)
            }
        }
        guard reader.atEnd, let seconds = LocalTime.seconds(fields, zone: zone), seconds >= 0 else { return nil }
        return UInt64(seconds)
    }

    /// `seconds` in local time, as the tables show it.
    static func shown(_ seconds: UInt64, zone: LocalTime.Zone = .system) -> String {
        LocalTime.format(seconds, "%Y-%m-%d %H:%M:%S", zone: zone)
    }

    /// Reads a time's text from the front.
    private struct Reader {
        var bytes: [UInt8]
        var index = 0
        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { index == bytes.count }

        /// The next character, consumed; nil at the end.
        mutating func next() -> Character? {
            guard !atEnd else { return nil }
            defer { index += 1 }
            return Character(Unicode.Scalar(bytes[index]))
        }

        /// Consumes `character` if it comes next.
        mutating func take(_ character: Character) -> Bool {
            guard !atEnd, Character(Unicode.Scalar(bytes[index])) == character else { return false }
            index += 1
            return true
        }

        /// Exactly `count` ASCII digits as a number.
        mutating func number(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// `Z` or `±HH:MM`, as seconds east of UTC.
        mutating func zone() -> Int? {
            if take("Z") { return 0 }
            let sign = take("+") ? 1 : take("-") ? -1 : 0
            guard sign != 0, let hours = number(2), take(":"), let minutes = number(2), hours <= 23, minutes <= 59
            else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
