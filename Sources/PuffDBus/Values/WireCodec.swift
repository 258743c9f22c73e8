// SPDX-License-Identifier: Apache-2.0
import CDBus

/// Encodes values into a complete wire-format message and back, with no bus involved
/// (wraps `dbus_message_marshal` / `dbus_message_demarshal`). Tests use it to check the codec
/// against libdbus's own validator.
public enum WireCodec {
    /// Marshals `values` as the body of a signal and returns the message bytes.
    ///
    /// A ``DBusValue/unixFD(_:)`` is written as an index into descriptors the bytes cannot carry,
    /// so ``decode(_:policy:)`` refuses the result; descriptors travel only over a connection.
    public static func encode(_ values: [DBusValue]) throws(DBusError) -> [UInt8] {
        try marshal(
            .signal(path: ObjectPath(unchecked: "/t"), interface: "org.puff.T", member: "T", values), sender: nil)
    }

    /// `message` as a peer receives it from `sender`: marshalled to bytes and decoded within
    /// `policy`, with no bus. Router tests build calls with it and read the replies back.
    public static func deliver(_ message: OutgoingMessage, from sender: String, policy: DecodePolicy = .standard)
        throws(DBusError) -> IncomingMessage
    {
        try decode(try marshal(message, sender: sender), policy: policy)
    }

    private static func marshal(_ outgoing: OutgoingMessage, sender: String?) throws(DBusError) -> [UInt8] {
        let message = try outgoing.build()
        defer { dbus_message_unref(message) }
        // A message on the wire always carries a serial; demarshalling rejects one without.
        dbus_message_set_serial(message, 1)
        if let sender, dbus_message_set_sender(message, sender) == 0 {
            throw DBusError(.noMemory, "could not set the sender")
        }
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(message, &buffer, &length) != 0, let buffer else {
            throw DBusError(.noMemory, "could not marshal")
        }
        defer { dbus_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    /// Validates and decodes message bytes within `policy`, returning the message.
    public static func decode(_ bytes: [UInt8], policy: DecodePolicy = .standard) throws(DBusError) -> IncomingMessage {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(buffer.count), &error)
            }
        }
        guard let message else { throw BusLoop.describe(error, fallback: "invalid message") }
        defer { dbus_message_unref(message) }
        return IncomingMessage(message, policy: policy)
    }
}
