// SPDX-License-Identifier: Apache-2.0
import CDBus
import PuffCrypto

/// Encodes ``DBusValue``s into a message body through a `DBusMessageIter`.
enum MessageWriter {
    /// libdbus refused a value; in practice only when it ran out of memory.
    struct Failure: Error {}

    /// Appends `values` as the body of `message`.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(Failure) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try write(value, into: &iter) }
    }

    private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws(Failure) {
        switch value {
        case .byte(let v): try basic(TypeCode.byte, v, &iter)
        case .boolean(let v): try basic(TypeCode.boolean, dbus_bool_t(v ? 1 : 0), &iter)
        case .int16(let v): try basic(TypeCode.int16, v, &iter)
        case .uint16(let v): try basic(TypeCode.uint16, v, &iter)
        case .int32(let v): try basic(TypeCode.int32, v, &iter)
        case .uint32(let v): try basic(TypeCode.uint32, v, &iter)
        case .int64(let v): try basic(TypeCode.int64, v, &iter)
        case .uint64(let v): try basic(TypeCode.uint64, v, &iter)
        case .double(let v): try basic(TypeCode.double, v, &iter)
        case .string(let v): try text(TypeCode.string, v, &iter)
        case .objectPath(let v): try text(TypeCode.objectPath, v.rawValue, &iter)
        case .signature(let v): try text(TypeCode.signature, v.rawValue, &iter)
        // libdbus duplicates the descriptor into the message; `v` stays open and owned by the value.
        case .unixFD(let v): try basic(TypeCode.unixFD, v.rawValue, &iter)
        case .bytes(let bytes):
            guard bytes.withUnsafeBytes({ byteArray($0, &iter) }) else { throw Failure() }
        case .secret(let bytes):
            guard bytes.withUnsafeBytes({ byteArray($0, &iter) }) else { throw Failure() }
        case .array(let element, let items):
            try container(TypeCode.array, element.rawValue, &iter) { (sub: inout DBusMessageIter) throws(Failure) in
                for item in items { try write(item, into: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            try container(TypeCode.array, "{" + key.rawValue + valueType.rawValue + "}", &iter) {
                (sub: inout DBusMessageIter) throws(Failure) in
                for entry in entries {
                    try container(TypeCode.dictEntry, nil, &sub) { (pair: inout DBusMessageIter) throws(Failure) in
                        try write(entry.key, into: &pair)
                        try write(entry.value, into: &pair)
                    }
                }
            }
        case .structure(let fields):
            try container(TypeCode.struct, nil, &iter) { (sub: inout DBusMessageIter) throws(Failure) in
                for field in fields { try write(field, into: &sub) }
            }
        case .variant(let inner):
            try container(TypeCode.variant, inner.signatureText, &iter) {
                (sub: inout DBusMessageIter) throws(Failure) in
                try write(inner, into: &sub)
            }
        }
    }

    /// Appends an `ay`; false when libdbus ran out of memory.
    private static func byteArray(_ raw: UnsafeRawBufferPointer, _ iter: inout DBusMessageIter) -> Bool {
        do {
            try container(TypeCode.array, "y", &iter) { (sub: inout DBusMessageIter) throws(Failure) in
                // libdbus copies the bytes into its message buffer.
                var pointer = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
                let ok = dbus_message_iter_append_fixed_array(&sub, TypeCode.byte, &pointer, Int32(raw.count))
                guard ok != 0 else { throw Failure() }
            }
            return true
        } catch {
            return false
        }
    }

    private static func basic<T>(_ type: Int32, _ value: T, _ iter: inout DBusMessageIter) throws(Failure) {
        var copy = value
        let ok = withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type, $0) }
        guard ok != 0 else { throw Failure() }
    }

    private static func text(_ type: Int32, _ value: String, _ iter: inout DBusMessageIter) throws(Failure) {
        let ok = value.withCString { cString -> dbus_bool_t in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, type, &pointer)
        }
        guard ok != 0 else { throw Failure() }
    }

    private static func container(
        _ type: Int32,
        _ contained: String?,
        _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(Failure) -> Void
    ) throws(Failure) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { throw Failure() }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw Failure() }
    }
}
