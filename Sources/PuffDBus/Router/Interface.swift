// SPDX-License-Identifier: Apache-2.0

/// One D-Bus interface as a table of methods, properties and signals (the sd-bus vtable and
/// dbus-crossroads shape): the router dispatches from it and introspection is generated from it,
/// so the two cannot disagree.
public struct Interface: Sendable {
    /// The interface's name.
    public let name: InterfaceName
    /// Methods in declaration order (introspection keeps it).
    public let methods: [Method]
    /// Properties in declaration order.
    public let properties: [Property]
    /// Signals in declaration order; only introspection reads them.
    public let signals: [SignalDescription]

    /// Creates an interface table.
    public init(
        _ name: InterfaceName, methods: [Method] = [], properties: [Property] = [], signals: [SignalDescription] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    func method(named member: String) -> Method? {
        methods.first { $0.name.rawValue == member }
    }

    func property(named property: String) -> Property? {
        properties.first { $0.name == property }
    }
}

/// A named, typed argument, as introspection shows it.
public struct Argument: Sendable {
    public let name: String
    public let signature: Signature
    /// Creates an argument description.
    public init(_ name: String, _ signature: Signature) {
        self.name = name
        self.signature = signature
    }
}

/// What a method handler receives.
public struct MethodCall: Sendable {
    /// The object path the call was sent to, exactly as the caller wrote it.
    public let path: ObjectPath
    /// The caller's unique bus name.
    public let sender: String
    /// The arguments, already checked against the method's input signature.
    public let arguments: [DBusValue]
}

/// One method: its signature and the code that answers it.
public struct Method: Sendable {
    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    /// Returns the reply body, which must match `outputs`, or throws an error for the router's mapper.
    public let handler: @Sendable (MethodCall) async throws -> [DBusValue]

    /// Creates a method entry.
    public init(
        _ name: MemberName,
        in inputs: [Argument] = [],
        out outputs: [Argument] = [],
        handler: @escaping @Sendable (MethodCall) async throws -> [DBusValue]
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.handler = handler
    }

    /// The concatenated input signature a call must carry.
    var inputSignature: String { inputs.map(\.signature.rawValue).joined() }
}

/// One property, readable and optionally writable.
public struct Property: Sendable {
    /// Whether clients may `Set` it.
    public enum Access: String, Sendable {
        case read, readwrite
    }

    public let name: String
    public let signature: Signature
    public let access: Access
    /// Reads the current value for the object at the path.
    public let get: @Sendable (ObjectPath) async throws -> DBusValue
    /// Writes a value already checked against `signature`; `nil` for read-only properties.
    public let set: (@Sendable (ObjectPath, DBusValue) async throws -> Void)?

    /// Creates a property entry; giving `set` makes it read-write.
    public init(
        _ name: String,
        _ signature: Signature,
        get: @escaping @Sendable (ObjectPath) async throws -> DBusValue,
        set: (@Sendable (ObjectPath, DBusValue) async throws -> Void)? = nil
    ) {
        self.name = name
        self.signature = signature
        access = set == nil ? .read : .readwrite
        self.get = get
        self.set = set
    }
}

/// A signal's name and arguments, for introspection.
public struct SignalDescription: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    /// Creates a signal description.
    public init(_ name: MemberName, _ arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// Answers which objects exist and what they implement; the Secret Service binding implements it
/// over its live collections, items, sessions and prompts.
public protocol ObjectTree: Sendable {
    /// The interfaces of the object at `path`, or `nil` when no object lives there.
    func interfaces(at path: ObjectPath, caller: String) async -> [Interface]?
    /// The names of the nodes directly below `path`, for introspection.
    func children(of path: ObjectPath, caller: String) async -> [String]
    /// The error for a call to a path where no object lives; `UnknownObject` unless the tree's
    /// clients expect another name.
    func missingObjectError(at path: ObjectPath) -> DBusError
}

extension ObjectTree {
    /// `org.freedesktop.DBus.Error.UnknownObject`, libdbus's own answer.
    public func missingObjectError(at path: ObjectPath) -> DBusError {
        DBusError(.unknownObject, "no object at \(path)")
    }
}
