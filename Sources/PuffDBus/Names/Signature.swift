// SPDX-License-Identifier: Apache-2.0
import CDBus

/// A D-Bus type signature: zero or more complete types, such as `a{sv}(oayays)b`
/// (wraps `dbus_signature_validate`).
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature as text; empty for a message with no arguments.
    public let rawValue: String

    /// Validates `rawValue` as a sequence of complete types.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_signature_validate) else { return nil }
        self.rawValue = rawValue
    }

    /// Literal signatures are checked when first used.
    public init(stringLiteral value: String) {
        precondition(NameValidation.isValid(value, dbus_signature_validate), "invalid signature literal \(value)")
        rawValue = value
    }

    init(uncheckedStorage rawValue: String) {
        self.rawValue = rawValue
    }

    /// The empty signature of a message without arguments.
    public static let empty: Signature = ""

    /// Whether this is exactly one complete type, as a variant's contents must be
    /// (wraps `dbus_signature_validate_single`).
    public var isSingleCompleteType: Bool {
        NameValidation.isValid(rawValue, dbus_signature_validate_single)
    }

    public var description: String { rawValue }
}

/// The type codes of the D-Bus wire format.
///
/// libdbus defines them as `((int) 's')` macros, which Swift does not import; the tests check
/// them against the `DBUS_TYPE_*_AS_STRING` macros, which it does.
public enum TypeCode {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let boolean = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let `struct` = Int32(UInt8(ascii: "r"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
}
