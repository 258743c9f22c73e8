// SPDX-License-Identifier: Apache-2.0
import CDBus

/// A D-Bus object path, checked with libdbus's own rules (wraps `dbus_validate_path`).
///
/// libdbus aborts the process when an invalid path is appended to a message, so every path Puff
/// sends is one of these; a string from a peer becomes one only after validation.
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path as text, for example `/org/freedesktop/secrets`.
    public let rawValue: String

    /// Validates `rawValue`; returns `nil` for anything libdbus would reject.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_validate_path) else { return nil }
        self.rawValue = rawValue
    }

    /// Wraps a path libdbus has already validated (one read from a received message).
    init(uncheckedStorage rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a path its builder guarantees to be valid, without checking it again: for paths
    /// assembled from validated parts in bulk (a collection's 100,000 item paths), where checking
    /// each one costs more than building it. Never use it for peer input.
    package init(trusted rawValue: String) {
        self.rawValue = rawValue
    }

    /// The root path `/`, which the Secret Service uses to mean "no object".
    public static let root = ObjectPath(unchecked: "/")

    /// Creates a path known to be valid at compile time. Never use it for peer input.
    public init(unchecked rawValue: String) {
        precondition(NameValidation.isValid(rawValue, dbus_validate_path), "invalid object path literal")
        self.rawValue = rawValue
    }

    /// The path's elements; empty for `/`.
    public var elements: [Substring] {
        rawValue.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// Appends one element, which must be a valid path element (`[A-Za-z0-9_]+`).
    public func appending(_ element: String) -> ObjectPath? {
        ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// Whether `self` lies strictly below `ancestor`.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        ancestor.rawValue == "/" ? rawValue != "/" : rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    public var description: String { rawValue }
    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A bus name, unique (`:1.42`) or well-known (`org.freedesktop.secrets`) (wraps `dbus_validate_bus_name`).
public struct BusName: Hashable, Sendable, CustomStringConvertible {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_validate_bus_name) else { return nil }
        self.rawValue = rawValue
    }
    /// Whether this is a connection's unique name rather than a well-known one.
    public var isUnique: Bool { rawValue.hasPrefix(":") }
    public var description: String { rawValue }
}

/// An interface name such as `org.freedesktop.Secret.Item` (wraps `dbus_validate_interface`).
public struct InterfaceName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_validate_interface) else { return nil }
        self.rawValue = rawValue
    }
    /// Literal names are checked when first used; a typo traps in tests, not in the field.
    public init(stringLiteral value: String) {
        precondition(NameValidation.isValid(value, dbus_validate_interface), "invalid interface literal \(value)")
        rawValue = value
    }
    public var description: String { rawValue }
}

/// A method or signal name such as `GetSecret` (wraps `dbus_validate_member`).
public struct MemberName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_validate_member) else { return nil }
        self.rawValue = rawValue
    }
    /// Literal names are checked when first used.
    public init(stringLiteral value: String) {
        precondition(NameValidation.isValid(value, dbus_validate_member), "invalid member literal \(value)")
        rawValue = value
    }
    public var description: String { rawValue }
}

/// An error name such as `org.freedesktop.Secret.Error.IsLocked` (wraps `dbus_validate_error_name`).
public struct ErrorName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as text.
    public let rawValue: String
    /// Validates `rawValue`.
    public init?(_ rawValue: String) {
        guard NameValidation.isValid(rawValue, dbus_validate_error_name) else { return nil }
        self.rawValue = rawValue
    }
    /// Literal names are checked when first used.
    public init(stringLiteral value: String) {
        precondition(NameValidation.isValid(value, dbus_validate_error_name), "invalid error literal \(value)")
        rawValue = value
    }
    public var description: String { rawValue }
}

/// Calls one of libdbus's validators with a scratch `DBusError` so nothing leaks.
enum NameValidation {
    typealias Validator = (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t

    static func isValid(_ text: String, _ validator: Validator) -> Bool {
        // Embedded NULs would be silently cut off by the C string conversion.
        guard !text.utf8.contains(0) else { return false }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return text.withCString { validator($0, &error) } != 0
    }
}
