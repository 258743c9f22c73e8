// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc
import PuffCrypto

/// Decodes a message body into ``DBusValue``s by walking a `DBusMessageIter`, within the limits of
/// a ``DecodePolicy``.
///
/// libdbus has already validated the message against the wire rules (UTF-8, nesting depth, path
/// syntax), so decoding can only fail on the policy's limits or on a Unix file descriptor that did
/// not arrive with the message.
struct MessageReader {
    private let policy: DecodePolicy
    private var values = 0
    private var bytes = 0

    private init(policy: DecodePolicy) {
        self.policy = policy
    }

    /// Reads every top-level argument of `message`.
    static func arguments(of message: OpaquePointer, policy: DecodePolicy) throws(UndecodedBody) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var reader = MessageReader(policy: policy)
        return try reader.readAll(&iter, secretField: nil)
    }

    /// Reads the values at `iter`; the field at index `secretField`, if an `ay`, is a secret.
    private mutating func readAll(_ iter: inout DBusMessageIter, secretField: Int?) throws(UndecodedBody) -> [DBusValue]
    {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
            values.append(try read(&iter, isSecret: values.count == secretField))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private mutating func count(values added: Int = 1, bytes addedBytes: Int = 0) throws(UndecodedBody) {
        values += added
        bytes += addedBytes
        if values > policy.maxValues {
            throw .limitExceeded("a message may hold at most \(policy.maxValues) values")
        }
        if bytes > policy.maxBytes {
            throw .limitExceeded("a message may carry at most \(policy.maxBytes) bytes of strings and arrays")
        }
    }

    private mutating func read(_ iter: inout DBusMessageIter, isSecret: Bool) throws(UndecodedBody) -> DBusValue {
        try count()
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case TypeCode.byte: return .byte(Self.basic(&iter, UInt8(0)))
        case TypeCode.boolean: return .boolean(Self.basic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(Self.basic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(Self.basic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(Self.basic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(Self.basic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(Self.basic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(Self.basic(&iter, UInt64(0)))
        case TypeCode.double: return .double(Self.basic(&iter, Double(0)))
        case TypeCode.string: return .string(try string(&iter))
        case TypeCode.objectPath: return .objectPath(ObjectPath(uncheckedStorage: try string(&iter)))
        case TypeCode.signature: return .signature(Signature(uncheckedStorage: try string(&iter)))
        case TypeCode.unixFD:
            // libdbus hands out a duplicate the caller owns, or -1 when the message holds no
            // descriptor at that index (bytes demarshalled without any) or the dup failed.
            let fd = Self.basic(&iter, Int32(-1))
            guard fd >= 0 else { throw .missingUnixFD }
            return .unixFD(UnixFD(taking: fd))
        case TypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .variant(try read(&inner, isSecret: false))
        case TypeCode.struct:
            var inner = DBusMessageIter()
            let secretField = policy.secretFields.isEmpty ? nil : policy.secretFields[Self.ownedSignature(&iter)]
            dbus_message_iter_recurse(&iter, &inner)
            return .structure(try readAll(&inner, secretField: secretField))
        case TypeCode.array:
            return try array(&iter, isSecret: isSecret)
        default:
            throw .unsupportedType
        }
    }

    private mutating func array(_ iter: inout DBusMessageIter, isSecret: Bool) throws(UndecodedBody) -> DBusValue {
        let elementType = dbus_message_iter_get_element_type(&iter)
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &inner)
        if elementType == TypeCode.byte {
            var pointer: UnsafeRawPointer? = nil
            var length: Int32 = 0
            dbus_message_iter_get_fixed_array(&inner, &pointer, &length)
            try count(values: 0, bytes: Int(length))
            let raw = UnsafeRawBufferPointer(start: pointer, count: Int(length))
            return isSecret ? .secret(SecureBytes(copying: raw)) : .bytes(Array(raw))
        }
        // The full signature is needed to describe an empty array's element type.
        let full = Self.ownedSignature(&iter)
        let element = String(full.dropFirst())
        if elementType == TypeCode.dictEntry {
            let (key, value) = Self.splitDictEntry(element)
            var entries: [DBusValue.DictEntry] = []
            while dbus_message_iter_get_arg_type(&inner) != TypeCode.invalid {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&inner, &entry)
                let k = try read(&entry, isSecret: false)
                dbus_message_iter_next(&entry)
                let v = try read(&entry, isSecret: false)
                entries.append(.init(k, v))
                dbus_message_iter_next(&inner)
            }
            return .dictionary(
                key: Signature(uncheckedStorage: key), value: Signature(uncheckedStorage: value), entries)
        }
        return .array(element: Signature(uncheckedStorage: element), try readAll(&inner, secretField: nil))
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private mutating func string(_ iter: inout DBusMessageIter) throws(UndecodedBody) -> String {
        let pointer: UnsafePointer<CChar>? = Self.basic(&iter, nil)
        guard let pointer else { return "" }
        let length = strlen(pointer)
        try count(values: 0, bytes: length)
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
