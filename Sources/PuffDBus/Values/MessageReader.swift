// SPDX-License-Identifier: Apache-2.0
import CDBus
import PuffCrypto

/// Decodes a message body into ``DBusValue``s by walking a `DBusMessageIter`.
///
/// libdbus has already validated the message against the wire rules (UTF-8, nesting depth, path
/// syntax), so decoding can only fail on types Puff refuses, such as Unix file descriptors.
enum MessageReader {
    /// Why a body could not be decoded.
    struct Unsupported: Error {
        var typeCode: Int32
    }

    /// Reads every top-level argument of `message`.
    static func arguments(of message: OpaquePointer) throws(Unsupported) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return try readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) throws(Unsupported) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func read(_ iter: inout DBusMessageIter) throws(Unsupported) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case TypeCode.byte: return .byte(basic(&iter, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iter, UInt64(0)))
        case TypeCode.double: return .double(basic(&iter, Double(0)))
        case TypeCode.string: return .string(string(&iter))
        case TypeCode.objectPath: return .objectPath(ObjectPath(uncheckedStorage: string(&iter)))
        case TypeCode.signature: return .signature(Signature(uncheckedStorage: string(&iter)))
        case TypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .variant(try read(&inner))
        case TypeCode.struct:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .structure(try readAll(&inner))
        case TypeCode.array:
            return try array(&iter)
        default:
            throw Unsupported(typeCode: type)
        }
    }

    private static func array(_ iter: inout DBusMessageIter) throws(Unsupported) -> DBusValue {
        let elementType = dbus_message_iter_get_element_type(&iter)
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &inner)
        if elementType == TypeCode.byte {
            var pointer: UnsafeRawPointer? = nil
            var count: Int32 = 0
            dbus_message_iter_get_fixed_array(&inner, &pointer, &count)
            return .bytes(SecureBytes(copying: UnsafeRawBufferPointer(start: pointer, count: Int(count))))
        }
        // The full signature is needed to describe an empty array's element type.
        let full = ownedSignature(&iter)
        let element = String(full.dropFirst())
        if elementType == TypeCode.dictEntry {
            let (key, value) = splitDictEntry(element)
            var entries: [DBusValue.DictEntry] = []
            while dbus_message_iter_get_arg_type(&inner) != TypeCode.invalid {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&inner, &entry)
                let k = try read(&entry)
                dbus_message_iter_next(&entry)
                let v = try read(&entry)
                entries.append(.init(k, v))
                dbus_message_iter_next(&inner)
            }
            return .dictionary(
                key: Signature(uncheckedStorage: key), value: Signature(uncheckedStorage: value), entries)
        }
        return .array(element: Signature(uncheckedStorage: element), try readAll(&inner))
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        let pointer: UnsafePointer<CChar>? = basic(&iter, nil)
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    private static func ownedSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    /// Splits `{kv}` into the key's one-character signature and the value's complete type.
    static func splitDictEntry(_ element: String) -> (String, String) {
        // A dict key is always a basic type, so it is exactly one character.
        let body = element.dropFirst().dropLast()
        return (String(body.prefix(1)), String(body.dropFirst()))
    }
}
