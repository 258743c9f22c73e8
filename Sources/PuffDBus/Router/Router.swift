// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Dispatches method calls to interface tables and answers the standard interfaces
/// (`Properties`, `Introspectable`, `Peer`) for every object.
///
/// Malformed or unexpected calls get `UnknownObject`, `UnknownInterface`, `UnknownMethod` or
/// `InvalidArgs` replies; handler errors go through the injected mapper, the one place that knows
/// domain error names.
public struct Router: Sendable {
    let tree: any ObjectTree
    private let mapError: @Sendable (any Error) -> DBusError
    /// `Properties` and `Introspectable` exist only on live objects and introspectable
    /// intermediate nodes; `Peer` answers anywhere, as libdbus's own handler would. Built once:
    /// every call consults them.
    private let standardOnObjects: [Interface]
    private let standardOnNodes: [Interface]

    /// Creates a router over `tree`; `mapError` turns handler errors into D-Bus errors.
    public init(tree: any ObjectTree, mapError: @escaping @Sendable (any Error) -> DBusError) {
        self.tree = tree
        self.mapError = mapError
        let introspectable = Self.introspectableInterface(tree)
        let peer = Self.peerInterface(machineID: Self.localMachineID)
        standardOnObjects = [Self.propertiesInterface(), introspectable, peer]
        standardOnNodes = [introspectable, peer]
    }

    /// This machine's D-Bus id, for `Peer.GetMachineId` (wraps `dbus_try_get_local_machine_id`).
    static let localMachineID: String = {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_try_get_local_machine_id(&error) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }()

    /// The input signatures the served methods take, per member name, for the bus thread's
    /// ``DecodePolicy`` (a call no method takes is not decoded).
    public func methodSignatures(serving interfaces: [Interface]) -> [String: Set<String>] {
        var table: [String: Set<String>] = [:]
        for interface in interfaces + standardOnObjects {
            for method in interface.methods { table[method.name.rawValue, default: []].insert(method.inputSignature) }
        }
        return table
    }

    /// The reply to a `Peer` call, which needs no object and never waits for one; nil for any
    /// other call.
    public func peerReply(to message: IncomingMessage) -> OutgoingMessage? {
        guard message.kind == .methodCall, message.interface == Self.peer || message.interface == nil,
            let member = message.member
        else { return nil }
        let reply: [DBusValue]
        switch member {
        case "Ping" where message.signature.rawValue.isEmpty: reply = []
        case "GetMachineId" where message.signature.rawValue.isEmpty: reply = [.string(Self.localMachineID)]
        default: return nil
        }
        return message.expectsReply ? .reply(to: message, reply) : nil
    }

    /// Whether `message` is an `Introspect` call, which the server runs beside the caller's lane.
    public static func isIntrospection(_ message: IncomingMessage) -> Bool {
        message.member == "Introspect"
            && (message.interface == nil || message.interface == "org.freedesktop.DBus.Introspectable")
    }

    static let peer = "org.freedesktop.DBus.Peer"

    /// Answers one method call made in `context`; returns `nil` when the caller asked for no reply,
    /// the message is not a method call, or the method answers later (``Method/deferred``) through
    /// `send`.
    public func handle(
        _ message: IncomingMessage, context: CallContext, send: @escaping @Sendable (OutgoingMessage) -> Void = { _ in }
    ) async -> OutgoingMessage? {
        guard message.kind == .methodCall else { return nil }
        let reply: OutgoingMessage
        do {
            guard let body = try await dispatch(message, context: context, send: send) else { return nil }
            reply = .reply(to: message, body)
        } catch let error as DBusError {
            reply = .error(to: message, error)
        } catch {
            reply = .error(to: message, mapError(error))
        }
        return message.expectsReply ? reply : nil
    }

    /// The reply body, or nil when the method answers through a ``Replier`` of `send`.
    private func dispatch(
        _ message: IncomingMessage, context: CallContext, send: @escaping @Sendable (OutgoingMessage) -> Void
    ) async throws -> [DBusValue]? {
        if case .limitExceeded(let why)? = message.undecodedBody { throw DBusError(.limitsExceeded, why) }
        guard let path = message.path, let member = message.member else {
            throw DBusError(.invalidArgs, "method call without path or member")
        }
        let found = await tree.resolve(path, context: context)
        let all = found.map { $0.interfaces + standardOnObjects } ?? standardOnNodes
        let method: Method
        if let interfaceName = message.interface {
            guard let interface = all.first(where: { $0.name.rawValue == interfaceName }) else {
                if found == nil { throw await tree.missingObjectError(at: path) }
                throw DBusError(.unknownInterface, "\(path) has no interface \(interfaceName)")
            }
            guard let match = interface.method(named: member) else {
                throw DBusError(.unknownMethod, "\(interfaceName) has no method \(member)")
            }
            method = match
        } else {
            // The interface field is optional; the D-Bus spec then matches on the member alone.
            guard let match = all.lazy.compactMap({ $0.method(named: member) }).first else {
                if found == nil { throw await tree.missingObjectError(at: path) }
                throw DBusError(.unknownMethod, "no method \(member) at \(path)")
            }
            method = match
        }
        if message.undecodedBody == .missingUnixFD, message.signature.rawValue == method.inputSignature {
            throw DBusError(.invalidArgs, "a Unix file descriptor argument of \(member) did not arrive")
        }
        guard message.undecodedBody == nil, message.signature.rawValue == method.inputSignature else {
            throw DBusError(
                .invalidArgs,
                "\(member) takes signature '\(method.inputSignature)', got '\(message.signature.rawValue)'"
            )
        }
        let call = MethodCall(
            path: path, context: context, arguments: message.arguments, object: found?.object,
            interfaces: found?.interfaces ?? [])
        guard let deferred = method.deferred else { return try await method.handler(call) }
        let replier = Replier(to: message, send: send)
        do {
            try await deferred(call, replier)
        } catch {
            // Thrown before an answer: the error is it. After one, the caller has what it gets.
            if replier.claim() { throw error }
        }
        return nil
    }
}

extension Router {
    static func peerInterface(machineID: String) -> Interface {
        Interface(
            "org.freedesktop.DBus.Peer",
            methods: [
                Method("Ping") { _ in [] },
                Method("GetMachineId", out: [Argument("machine_uuid", "s")]) { _ in [.string(machineID)] },
            ]
        )
    }

    static func introspectableInterface(_ tree: any ObjectTree) -> Interface {
        Interface(
            "org.freedesktop.DBus.Introspectable",
            methods: [
                Method("Introspect", out: [Argument("xml_data", "s")]) { call in
                    let interfaces = call.object == nil ? nil : call.interfaces
                    let children = await tree.children(of: call.path, context: call.context)
                    if interfaces == nil && children.isEmpty { throw await tree.missingObjectError(at: call.path) }
                    let standard = interfaces == nil ? [] : Router.standardDescriptions
                    return [
                        .string(Introspection.document(interfaces: (interfaces ?? []) + standard, children: children))
                    ]
                }
            ]
        )
    }

    /// The standard interfaces as introspection shows them (no handlers needed there).
    static let standardDescriptions: [Interface] = [
        propertiesInterface(), introspectableInterface(EmptyTree()), peerInterface(machineID: ""),
    ]
}

/// A tree with no objects, used only to describe the standard interfaces.
private struct EmptyTree: ObjectTree {
    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? { nil }
    func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
}
