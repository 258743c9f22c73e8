// SPDX-License-Identifier: Apache-2.0

/// A Flatpak application id such as `org.example.App`, valid by flatpak's own grammar
/// (`flatpak_is_valid_name`): at most 255 bytes, at least three dot-separated elements, each
/// starting with a letter, `_` or `-` and going on with letters, digits, `_` or `-`, and no `-` in
/// the last element.
///
/// Sandboxed callers are named by it (`/.flatpak-info`'s `[Application] name`, the portal's
/// `app_id`), and access rules and portal keys are keyed by it, so an id that flatpak itself
/// would refuse is never believed.
public struct AppID: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The id as flatpak spells it.
    public let rawValue: String

    /// Wraps `rawValue` if it is a valid application id, else nil.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// The id.
    public var description: String { rawValue }

    /// The longest id flatpak accepts, in bytes.
    public static let maximumLength = 255

    /// Whether `name` follows flatpak's application-id grammar.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for (index, element) in elements.enumerated() {
            // Dashes are allowed in every element but the last, as in flatpak.
            let dashAllowed = index < elements.count - 1
            guard let first = element.first, isInitial(first, dashAllowed: dashAllowed) else { return false }
            guard element.dropFirst().allSatisfy({ isInitial($0, dashAllowed: dashAllowed) || isDigit($0) })
            else { return false }
        }
        return true
    }

    private static func isInitial(_ byte: UInt8, dashAllowed: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): true
        case UInt8(ascii: "-"): dashAllowed
        default: false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
