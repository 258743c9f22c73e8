// SPDX-License-Identifier: Apache-2.0

/// A D-Bus error: a name plus a short message meant for developers.
///
/// - Important: Messages travel to the peer and into logs. Never put secret bytes, passcodes or
///   attribute values in them.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error name, for example `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: ErrorName
    /// A short human-readable explanation.
    public var message: String

    /// Creates an error from its name and message.
    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }
}

extension ErrorName {
    // The standard names, as in dbus-protocol.h.
    public static let failed: ErrorName = "org.freedesktop.DBus.Error.Failed"
    public static let noMemory: ErrorName = "org.freedesktop.DBus.Error.NoMemory"
    public static let invalidArgs: ErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let unknownMethod: ErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject: ErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface: ErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty: ErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly: ErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let notSupported: ErrorName = "org.freedesktop.DBus.Error.NotSupported"
    public static let accessDenied: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    public static let noReply: ErrorName = "org.freedesktop.DBus.Error.NoReply"
    public static let disconnected: ErrorName = "org.freedesktop.DBus.Error.Disconnected"
    public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
}
extension ErrorName {
    /// `org.freedesktop.DBus.Error.LimitsExceeded`, for a request over one of the daemon's limits.
    public static let limitsExceeded: ErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
}
