// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol
public import PuffService

/// Pure mapping between object paths and service identifiers (secret-service.md §1.2–§1.3).
public enum ObjectPaths {
    /// What a path under `/org/freedesktop/secrets` names.
    public enum Target: Equatable, Sendable {
        case service
        case collection(CollectionID)
        case alias(String)
        case item(ItemID)
        /// An item addressed through an alias, `aliases/<alias>/<number>` (gnome-keyring accepts it too).
        case aliasItem(alias: String, number: UInt64)
        case session(SessionID)
        case prompt(PromptID)
        /// An intermediate node such as `/org/freedesktop/secrets/collection`.
        case node
    }

    private static let base = SecretServiceNames.servicePath.rawValue
    private static let prefix = base + "/"
    private static let prefixBytes = prefix.utf8.count

    /// Parses `path`; `nil` when it names nothing the Secret Service serves.
    public static func parse(_ path: ObjectPath) -> Target? {
        let raw = path.rawValue
        if raw == base { return .service }
        guard raw.hasPrefix(prefix) else { return nil }
        // Every call's path is parsed on the bus thread: split by byte after the prefix (a path's
        // elements are ASCII), not by Character.
        let parts = raw.utf8.dropFirst(prefixBytes).split(separator: UInt8(ascii: "/"))
        func element(_ index: Int) -> String { String(Substring(parts[index])) }
        switch (parts.first.map { String(Substring($0)) }, parts.count) {
        case ("collection", 1), ("aliases", 1), ("session", 1), ("prompt", 1): return .node
        case ("collection", 2): return .collection(CollectionID(decode(element(1))))
        case ("collection", 3):
            guard let number = UInt64(Substring(parts[2])) else { return nil }
            return .item(ItemID(collection: CollectionID(decode(element(1))), number: number))
        case ("aliases", 2): return .alias(element(1))
        case ("aliases", 3):
            guard let number = UInt64(Substring(parts[2])) else { return nil }
            return .aliasItem(alias: element(1), number: number)
        case ("session", 2): return .session(SessionID(element(1)))
        case ("prompt", 2): return .prompt(PromptID(element(1)))
        default: return nil
        }
    }

    /// The path of a collection.
    public static func path(of collection: CollectionID) -> ObjectPath {
        // An encoded identifier is a valid element (``PathElement``): nothing to check again.
        ObjectPath(trusted: base + "/collection/" + encode(collection.rawValue))
    }

    /// The path of an item.
    public static func path(of item: ItemID) -> ObjectPath {
        ObjectPath(trusted: path(of: item.collection).rawValue + "/" + String(item.number))
    }

    /// The paths of many items, encoding each collection's part once per run of items from the
    /// same collection (a collection's `Items` can hold 100,000 paths).
    public static func paths(of items: [ItemID]) -> [ObjectPath] {
        var paths: [ObjectPath] = []
        paths.reserveCapacity(items.count)
        var collection: CollectionID?
        var prefix = ""
        for item in items {
            if item.collection != collection {
                collection = item.collection
                prefix = path(of: item.collection).rawValue + "/"
            }
            // The prefix is a valid collection path and a number is a valid element.
            paths.append(ObjectPath(trusted: prefix + String(item.number)))
        }
        return paths
    }

    /// The path of a session.
    public static func path(of session: SessionID) -> ObjectPath {
        ObjectPath(trusted: base + "/session/" + encode(session.rawValue))
    }

    /// The path of a prompt.
    public static func path(of prompt: PromptID) -> ObjectPath {
        ObjectPath(unchecked: base + "/prompt/" + encode(prompt.rawValue))
    }

    /// Encodes an identifier as one path element (the contract's ``PathElement``).
    public static func encode(_ identifier: String) -> String {
        PathElement.encode(identifier)
    }

    /// Reverses ``encode(_:)``.
    public static func decode(_ element: String) -> String {
        PathElement.decode(element)
    }
}
