// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// What the reader takes from a KDBX database's XML: the entries outside history, with their
/// string fields, attachment references and times, and the Meta fields that matter for import.
struct KDBXDocument {
    /// A string field's value: clear in the XML, or protected by the inner stream.
    enum FieldValue {
        case plain(String)
        case protected(SecureBytes)

        /// The value as text (protected values of fields that are not the secret: labels and
        /// attributes are not secret in Puff's model).
        var text: String {
            switch self {
            case .plain(let text): text
            case .protected(let bytes): bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            }
        }

        /// The value's UTF-8 bytes in secure memory.
        var secret: SecureBytes {
            switch self {
            case .plain(let text): SecureBytes(unwipedCopyOf: Array(text.utf8))
            case .protected(let bytes): bytes
            }
        }
    }

    /// An attachment reference: an index into the binary pool, or (old files) data in place.
    enum BinaryReference {
        case pool(Int)
        case inline(SecureBytes)
    }

    struct Entry {
        var strings: [(key: String, value: FieldValue)] = []
        var binaries: [(key: String, reference: BinaryReference)] = []
        var created: UInt64?
        var modified: UInt64?
        /// The UUIDs (base64, as in the XML) of the groups it sits in, outermost first.
        var groups: [String] = []

        func string(_ key: String) -> FieldValue? { strings.first { $0.key == key }?.value }
    }

    var databaseName = ""
    var rootGroupName = ""
    var recycleBinUUID = ""
    var recycleBinEnabled = true
    var entries: [Entry] = []
    /// KDBX 3.1's Meta/Binaries pool, by ID (KDBX 4 keeps its pool in the inner header).
    var metaBinaries: [Int: SecureBytes] = [:]

    /// The standard fields; every other string field is a custom one.
    static let standardFields: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]

    /// Seconds between 0001-01-01 and 1970-01-01 (KDBX 4 times count from the former).
    static let epochOffset: Int64 = 62_135_596_800

    /// A time as KDBX 4 (base64 of a little-endian int64 of seconds since year 1) or KDBX 3.1
    /// (ISO 8601, UTC) writes it; nil before 1970 or unreadable.
    static func parseTime(_ text: String) -> UInt64? {
        // Spaces and tabs, not line ends, as Foundation's `.whitespaces` trimmed before.
        let blank: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        let text = String(text.drop(while: blank).reversed().drop(while: blank).reversed())
        if text.contains("-") { return parseISOTime(text) }
        guard let bytes = Base64.decode(text), bytes.count == 8 else { return nil }
        let seconds = Int64(bitPattern: bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let unix = seconds - epochOffset
        return unix >= 0 ? UInt64(unix) : nil
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
    private static func parseISOTime(_ text: String) -> UInt64? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
        guard digits.count >= 6 else { return nil }
        let (year, month, day) = (digits[0], digits[1], digits[2])
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let unix = days * 86_400 + digits[3] * 3_600 + digits[4] * 60 + digits[5]
        return unix >= 0 ? UInt64(unix) : nil
    }

    /// A Unix time as KDBX 4 writes it.
    static func formatTime(_ unix: UInt64) -> String {
        Base64.encode(LittleEndian.bytes(Int64(unix) + epochOffset))
    }
}
