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

/// What a method or property handler receives: the call, who made it, and the object the tree
/// resolved the path to, once per call.
public struct MethodCall: Sendable {
    /// The object path the call was sent to, exactly as the caller wrote it.
    public let path: ObjectPath
    /// Who is calling.
    public let context: CallContext
    /// The arguments, already checked against the method's input signature; empty for properties.
    public let arguments: [DBusValue]
    /// What ``ObjectTree/resolve(_:context:)`` found at `path`; nil on nodes without an object.
    public let object: (any Sendable)?
    /// The interfaces of that object (the standard Properties interface reads them).
    let interfaces: [Interface]

    /// Creates a call, for tests that invoke handlers directly.
    public init(
        path: ObjectPath, context: CallContext, arguments: [DBusValue] = [], object: (any Sendable)? = nil,
        interfaces: [Interface] = []
    ) {
        self.path = path
        self.context = context
        self.arguments = arguments
        self.object = object
        self.interfaces = interfaces
    }

    /// The caller's unique bus name.
    public var sender: String { context.sender }
}

/// One method: its signature and the code that answers it.
public struct Method: Sendable {
    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    /// Returns the reply body, which must match `outputs`, or throws an error for the router's mapper.
    public let handler: @Sendable (MethodCall) async throws -> [DBusValue]
    /// For a method that answers later: its body, which gets the call's ``Replier`` and returns
    /// (the router then sends nothing); nil for a method that answers by returning.
    public let deferred: (@Sendable (MethodCall, Replier) async throws -> Void)?

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
        deferred = nil
    }

    /// Creates a method that answers later through a ``Replier``: `body` returns once it has
    /// handed the work on, so the caller's lane moves on (the portal's `Close` must overtake the
    /// `RetrieveSecret` it cancels). An error `body` throws before answering is the reply.
    public init(
        _ name: MemberName,
        in inputs: [Argument] = [],
        out outputs: [Argument] = [],
        deferred body: @escaping @Sendable (MethodCall, Replier) async throws -> Void
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        // Only the router can give the body a replier that reaches the bus.
        handler = { _ in throw DBusError(.failed, "\(name) answers through the router") }
        deferred = body
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
    /// Reads the current value of the resolved object.
    public let get: @Sendable (MethodCall) async throws -> DBusValue
    /// Writes a value already checked against `signature`; `nil` for read-only properties.
    public let set: (@Sendable (MethodCall, DBusValue) async throws -> Void)?

    /// Creates a property entry; giving `set` makes it read-write.
    public init(
        _ name: String,
        _ signature: Signature,
        get: @escaping @Sendable (MethodCall) async throws -> DBusValue,
        set: (@Sendable (MethodCall, DBusValue) async throws -> Void)? = nil
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

/// An object the tree found at a path: what it implements, and a value of the tree's own that
/// every handler of the call receives (so a call resolves its path once).
public struct ResolvedObject: Sendable {
    /// The object's own interfaces (the router adds the standard ones).
    public let interfaces: [Interface]
    /// The tree's description of the object, handed to handlers as ``MethodCall/object``.
    public let object: any Sendable

    /// Creates a resolved object.
    public init(interfaces: [Interface], object: any Sendable) {
        self.interfaces = interfaces
        self.object = object
    }
}

/// Answers which objects exist and what they implement; the Secret Service binding implements it
/// over its live collections, items, sessions and prompts.
public protocol ObjectTree: Sendable {
    /// The object at `path`, or `nil` when no object lives there.
    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject?
    /// The names of the nodes directly below `path`, for introspection.
    func children(of path: ObjectPath, context: CallContext) async -> [String]
    /// The error for a call to a path where no object lives; `UnknownObject` unless the tree's
    /// clients expect another name.
    func missingObjectError(at path: ObjectPath) async -> DBusError
}

extension ObjectTree {
    /// `org.freedesktop.DBus.Error.UnknownObject`, libdbus's own answer.
    public func missingObjectError(at path: ObjectPath) async -> DBusError {
        DBusError(.unknownObject, "no object at \(path)")
    }
}
