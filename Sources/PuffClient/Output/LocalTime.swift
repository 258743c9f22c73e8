// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Times as puffctl shows and reads them, in the C library's local time (`TZ`, else
/// /etc/localtime): localtime_r/mktime and strftime rather than Foundation's DateFormatter,
/// whose ICU data made most of puffctl's size (docs/design/core-reshaped.md §10).
enum LocalTime {
    /// The zone a time is shown or read in.
    enum Zone: Sendable, Equatable {
        /// The C library's local time, daylight saving included.
        case system
        /// A fixed offset east of UTC, in seconds: a time that names its zone, and tests.
        case offset(Int)
    }

    /// `seconds` since the epoch as strftime(3) `format` writes them in `zone` (digits only: the
    /// C locale's, as the formats used here have no names in them).
    static func format(_ seconds: UInt64, _ format: String, zone: Zone = .system) -> String {
        var parts = tm()
        switch zone {
        case .system:
            var time = time_t(clamping: seconds)
            localtime_r(&time, &parts)
        case .offset(let east):
            var time = time_t(clamping: seconds).addingReportingOverflow(time_t(east)).partialValue
            gmtime_r(&time, &parts)
        }
        var buffer = [CChar](repeating: 0, count: 128)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A calendar date and time of day.
    struct Fields: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var hour = 0
        var minute = 0
        var second = 0

        /// Whether the fields name a real day and time of day (no February 30, no hour 24).
        var isValid: Bool {
            guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
                (0...59).contains(second), (1...9999).contains(year)
            else { return false }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            return (1...days).contains(day)
        }
    }

    /// `fields` read in `zone`, as seconds since the epoch; nil when they are not a real time.
    static func seconds(_ fields: Fields, zone: Zone = .system) -> Int64? {
        guard fields.isValid else { return nil }
        var parts = tm()
        parts.tm_year = Int32(fields.year - 1900)
        parts.tm_mon = Int32(fields.month - 1)
        parts.tm_mday = Int32(fields.day)
        parts.tm_hour = Int32(fields.hour)
        parts.tm_min = Int32(fields.minute)
        parts.tm_sec = Int32(fields.second)
        switch zone {
        case .system:
            // -1: let the C library decide whether daylight saving time applies that day.
            parts.tm_isdst = -1
            return Int64(mktime(&parts))
        case .offset(let east):
            return Int64(timegm(&parts)) - Int64(east)
        }
    }
}
