// SPDX-License-Identifier: Apache-2.0

/// The object paths of Secret Service collections and items as puffd builds them
/// (secret-service.md §1.2–§1.3).
///
/// PuffServiceBus has the same mapping (`ObjectPaths`); puffctl keeps this small copy so that it
/// depends on the bus wrapper only, never on the daemon's targets.
enum SecretPaths {
    /// What every collection path starts with.
    static let collectionPrefix = "/org/freedesktop/secrets/collection/"
    /// The service object, where `OpenSession` and `SearchItems` live.
    static let service = "/org/freedesktop/secrets"

    /// The path of the collection with id `collection`.
    static func collection(_ collection: String) -> String {
        collectionPrefix + encode(collection)
    }

    /// The path of item `number` of `collection`.
    static func item(_ collection: String, number: UInt64) -> String {
        Self.collection(collection) + "/" + String(number)
    }

    /// The encoded collection element and the item number of an item path; nil for any other path.
    static func itemParts(of path: String) -> (collectionElement: String, number: UInt64)? {
        guard path.hasPrefix(collectionPrefix) else { return nil }
        let parts = path.dropFirst(collectionPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let number = UInt64(parts[1]) else { return nil }
        return (String(parts[0]), number)
    }

    /// One path element for an identifier: ASCII letters and digits pass, every other byte becomes
    /// `_` and two lower-case hex digits (gnome-keyring's scheme, which puffd follows).
    static func encode(_ identifier: String) -> String {
        if identifier.isEmpty { return "_" }
        var out = ""
        for byte in identifier.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "_" + String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
            }
        }
        return out
    }
}

extension SecretPaths {
    /// `COLLECTION/NUMBER` for an item path of `collection`, as `show` and `get` take it; the
    /// path itself when it is not one.
    static func shortName(of path: String, collection: String) -> String {
        guard let parts = itemParts(of: path), parts.collectionElement == encode(collection) else { return path }
        return "\(collection)/\(parts.number)"
    }
}
