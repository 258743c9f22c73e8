// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

// Typed views and constructors for the shapes the Secret Service uses. Handlers run only after
// the router has checked the signature, so a `nil` here means a bug in a table, not bad input;
// callers still turn it into InvalidArgs rather than trapping.
extension DBusValue {
    /// The string of an `s` value.
    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The path of an `o` value.
    public var objectPath: ObjectPath? {
        if case .objectPath(let value) = self { value } else { nil }
    }

    /// The number of a `q` value.
    public var uint16: UInt16? {
        if case .uint16(let value) = self { value } else { nil }
    }

    /// The number of a `u` value.
    public var uint32: UInt32? {
        if case .uint32(let value) = self { value } else { nil }
    }

    /// The flag of a `b` value.
    public var bool: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The descriptor of an `h` value.
    public var unixFD: UnixFD? {
        if case .unixFD(let value) = self { value } else { nil }
    }

    /// The bytes of an ordinary `ay` value.
    public var bytes: [UInt8]? {
        if case .bytes(let value) = self { value } else { nil }
    }

    /// The bytes of a secret `ay` value.
    public var secret: SecureBytes? {
        if case .secret(let value) = self { value } else { nil }
    }

    /// The contents of a `v` value.
    public var variantContents: DBusValue? {
        if case .variant(let value) = self { value } else { nil }
    }

    /// The fields of a struct value.
    public var fields: [DBusValue]? {
        if case .structure(let value) = self { value } else { nil }
    }

    /// The elements of an array value (not of `ay`, which is ``bytes`` or ``secret``).
    public var elements: [DBusValue]? {
        if case .array(_, let value) = self { value } else { nil }
    }

    /// The paths of an `ao` value.
    public var objectPaths: [ObjectPath]? {
        guard case .array(_, let items) = self else { return nil }
        var paths: [ObjectPath] = []
        paths.reserveCapacity(items.count)
        for item in items {
            guard let path = item.objectPath else { return nil }
            paths.append(path)
        }
        return paths
    }

    /// The pairs of an `a{ss}` value; a repeated key keeps its last value, as in a dictionary.
    public var stringDictionary: [String: String]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var result: [String: String] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard let key = entry.key.string, let value = entry.value.string else { return nil }
            result[key] = value
        }
        return result
    }

    /// The entries of an `a{sv}` value with the variants unwrapped.
    public var variantDictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string, let value = entry.value.variantContents else { return nil }
            result[key] = value
        }
        return result
    }

    /// An `ao` value.
    public static func objectPaths(_ paths: [ObjectPath]) -> DBusValue {
        .array(element: "o", paths.map { .objectPath($0) })
    }

    /// An `as` value.
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(element: "s", strings.map { .string($0) })
    }

    /// An `a{ss}` value with keys in sorted order, so replies are deterministic.
    public static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .dictionary(
            key: "s",
            value: "s",
            dictionary.sorted { $0.key < $1.key }.map { .init(.string($0.key), .string($0.value)) }
        )
    }

}
