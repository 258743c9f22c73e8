// SPDX-License-Identifier: Apache-2.0
import PuffProtocol

/// The object paths of Secret Service collections and items as puffd builds them
/// (secret-service.md §1.2–§1.3).
///
/// Built from the wire contract (PuffProtocol) that PuffServiceBus's `ObjectPaths` uses too, so
/// that puffctl depends on the bus wrapper only, never on the daemon's targets.
enum SecretPaths {
    /// What every collection path starts with.
    static let collectionPrefix = SecretServiceContract.collectionPathPrefix
    /// The service object, where `OpenSession` and `SearchItems` live.
    static let service = SecretServiceContract.servicePath

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

    /// One path element for an identifier, as puffd builds it.
    static func encode(_ identifier: String) -> String {
        PathElement.encode(identifier)
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
