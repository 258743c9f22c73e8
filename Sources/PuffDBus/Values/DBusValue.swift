// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One D-Bus value of any type the wire format allows.
///
/// Byte arrays (`ay`) come in two cases with the same wire type: ordinary ``bytes(_:)`` for IVs,
/// public keys and anything else, and ``secret(_:)`` in locked, wiped memory for the byte arrays a
/// ``DecodePolicy`` names as secret (the value of a Secret Service `(oayays)`). Only secrets spend
/// locked memory: one `sodium_malloc` per `ay` would let one message exhaust the process's maps.
public enum DBusValue: Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// `h`: a Unix file descriptor, owned by the value. A decoded one is a new descriptor of this
    /// process (libdbus duplicates what arrived); sending one duplicates it again, so the value
    /// keeps its own.
    case unixFD(UnixFD)
    /// `ay` that is not secret.
    case bytes([UInt8])
    /// `ay` whose contents are secret; held in locked memory and wiped when released.
    case secret(SecureBytes)
    /// Any other array; `element` is the signature of one element (needed for empty arrays).
    case array(element: Signature, [DBusValue])
    /// `a{kv}`; entries keep their wire order.
    case dictionary(key: Signature, value: Signature, [DictEntry])
    case structure([DBusValue])
    /// The only case that holds a value inline needs a box; boxing every case would cost an
    /// allocation per value (100,000 per `Items` list).
    indirect case variant(DBusValue)

    /// One entry of a ``DBusValue/dictionary(key:value:_:)``.
    public struct DictEntry: Sendable {
        public var key: DBusValue
        public var value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's complete type signature.
    public var signature: Signature {
        Signature(unchecked: signatureText)
    }

    var signatureText: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes, .secret: "ay"
        case .array(let element, _): "a" + element.rawValue
        case .dictionary(let key, let value, _): "a{" + key.rawValue + value.rawValue + "}"
        case .structure(let fields): "(" + fields.map(\.signatureText).joined() + ")"
        case .variant: "v"
        }
    }
}

extension Signature {
    /// Skips validation for signatures built from already-valid values.
    init(unchecked rawValue: String) {
        self.init(uncheckedStorage: rawValue)
    }
}

extension DBusValue {
    /// The signature of a sequence of values, as a message body's signature.
    public static func signature(of values: [DBusValue]) -> Signature {
        Signature(unchecked: values.map(\.signatureText).joined())
    }
}
