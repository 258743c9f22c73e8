// SPDX-License-Identifier: Apache-2.0
import CDBus

/// A message received from the bus, decoded on the bus thread into plain `Sendable` values.
public struct IncomingMessage: Sendable {
    /// The four D-Bus message types.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal
        /// A type the D-Bus specification does not define; libdbus accepts it (the specification
        /// says to ignore such messages, not refuse them) and the bus thread drops it.
        case unknown
    }

    public var kind: Kind
    /// The sender's serial for this message.
    public var serial: UInt32
    /// For replies and errors, the serial of the call they answer.
    public var replySerial: UInt32
    /// The sender's unique name; the bus daemon always fills it in.
    public var sender: String?
    public var destination: String?
    public var path: ObjectPath?
    /// The interface, which a method call may omit (the D-Bus spec allows matching by member alone).
    public var interface: String?
    public var member: String?
    public var errorName: String?
    /// The body's signature exactly as received.
    public var signature: Signature
    /// The decoded body.
    public var arguments: [DBusValue]
    /// Why the body was not decoded, when it was not; ``arguments`` is then empty.
    public var undecodedBody: UndecodedBody?
    /// Whether the caller wants an answer (`NO_REPLY_EXPECTED` not set).
    public var expectsReply: Bool

    /// Creates a message by hand, for router tests that need no bus.
    public init(
        methodCallTo path: ObjectPath,
        interface: String?,
        member: String,
        arguments: [DBusValue] = [],
        sender: String = ":1.99",
        serial: UInt32 = 1
    ) {
        kind = .methodCall
        self.serial = serial
        replySerial = 0
        self.sender = sender
        destination = nil
        self.path = path
        self.interface = interface
        self.member = member
        errorName = nil
        signature = DBusValue.signature(of: arguments)
        self.arguments = arguments
        undecodedBody = nil
        expectsReply = true
    }

    /// Decodes `message` within `policy`; runs on the bus thread only.
    init(_ message: OpaquePointer, policy: DecodePolicy) {
        switch dbus_message_get_type(message) {
        case 1: kind = .methodCall
        case 2: kind = .methodReturn
        case 3: kind = .error
        case 4: kind = .signal
        default: kind = .unknown
        }
        serial = dbus_message_get_serial(message)
        replySerial = dbus_message_get_reply_serial(message)
        sender = dbus_message_get_sender(message).map { String(cString: $0) }
        destination = dbus_message_get_destination(message).map { String(cString: $0) }
        path = dbus_message_get_path(message).map { ObjectPath(uncheckedStorage: String(cString: $0)) }
        interface = dbus_message_get_interface(message).map { String(cString: $0) }
        member = dbus_message_get_member(message).map { String(cString: $0) }
        errorName = dbus_message_get_error_name(message).map { String(cString: $0) }
        signature = Signature(uncheckedStorage: dbus_message_get_signature(message).map { String(cString: $0) } ?? "")
        expectsReply = dbus_message_get_no_reply(message) == 0
        // A call no served method takes is not decoded: its body could be anything; nor is a
        // message of an unknown type, which is dropped.
        if kind == .unknown {
            arguments = []
            undecodedBody = .unexpectedSignature
            return
        }
        if kind == .methodCall, !policy.accepts(member: member, signature: signature.rawValue) {
            arguments = []
            undecodedBody = .unexpectedSignature
            return
        }
        do {
            arguments = try MessageReader.arguments(of: message, policy: policy)
            undecodedBody = nil
        } catch {
            arguments = []
            undecodedBody = error
        }
    }
}

/// A message to send, described as plain values and built into a `DBusMessage` on the bus thread.
public struct OutgoingMessage: Sendable {
    enum Kind: Sendable {
        case methodReturn(replySerial: UInt32)
        case error(replySerial: UInt32, name: ErrorName, text: String)
        case signal(path: ObjectPath, interface: InterfaceName, member: MemberName)
        case methodCall(path: ObjectPath, interface: InterfaceName, member: MemberName)
    }

    var kind: Kind
    /// The recipient; `nil` broadcasts a signal.
    public var destination: String?
    public var body: [DBusValue]

    /// A successful reply to `call`.
    public static func reply(to call: IncomingMessage, _ body: [DBusValue] = []) -> OutgoingMessage {
        OutgoingMessage(kind: .methodReturn(replySerial: call.serial), destination: call.sender, body: body)
    }

    /// An error reply to `call`; `text` is for developers and must hold no secret.
    public static func error(to call: IncomingMessage, _ error: DBusError) -> OutgoingMessage {
        OutgoingMessage(
            kind: .error(replySerial: call.serial, name: error.name, text: error.message),
            destination: call.sender,
            body: [.string(error.message)]
        )
    }

    /// A signal; broadcast unless `destination` is given (the spec unicasts `Prompt.Completed`).
    public static func signal(
        path: ObjectPath,
        interface: InterfaceName,
        member: MemberName,
        destination: String? = nil,
        _ body: [DBusValue] = []
    ) -> OutgoingMessage {
        OutgoingMessage(
            kind: .signal(path: path, interface: interface, member: member), destination: destination, body: body)
    }

    /// A method call to another connection.
    public static func methodCall(
        destination: String,
        path: ObjectPath,
        interface: InterfaceName,
        member: MemberName,
        _ body: [DBusValue] = []
    ) -> OutgoingMessage {
        OutgoingMessage(
            kind: .methodCall(path: path, interface: interface, member: member), destination: destination, body: body)
    }

    /// Builds the libdbus message; the caller owns the returned reference.
    func build() throws(DBusError) -> OpaquePointer {
        let message: OpaquePointer?
        switch kind {
        case .methodReturn(let serial):
            message = dbus_message_new(2)
            if let message { dbus_message_set_reply_serial(message, serial) }
        case .error(let serial, let name, _):
            message = dbus_message_new(3)
            if let message {
                dbus_message_set_reply_serial(message, serial)
                dbus_message_set_error_name(message, name.rawValue)
            }
        case .signal(let path, let interface, let member):
            message = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue)
        case .methodCall(let path, let interface, let member):
            message = dbus_message_new_method_call(destination, path.rawValue, interface.rawValue, member.rawValue)
        }
        guard let message else { throw DBusError(.noMemory, "could not allocate a message") }
        if let destination, dbus_message_set_destination(message, destination) == 0 {
            dbus_message_unref(message)
            throw DBusError(.noMemory, "could not set the destination")
        }
        do {
            try MessageWriter.append(body, to: message)
        } catch {
            dbus_message_unref(message)
            throw DBusError(.noMemory, "could not encode the message body")
        }
        return message
    }
}
