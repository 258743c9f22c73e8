// SPDX-License-Identifier: Apache-2.0

/// What resolving an item needs from puffd; ``ControlClient`` answers over the bus, and tests
/// answer from a table.
public protocol ItemDirectory: Sendable {
    /// `Status`: the vault and its visible collections.
    func status() async throws(ClientError) -> VaultStatus
    /// `ListItems`: the items of one visible collection, never their secrets.
    func listItems(in collection: String) async throws(ClientError) -> [ItemSummary]
    /// The Secret Service's `SearchItems`: paths of exact matches, unlocked and locked.
    func searchItems(_ attributes: [String: String]) async throws(ClientError) -> (unlocked: [String], locked: [String])
}

/// The item a reference named, with the status of its collection (whose lock decides whether its
/// secret can be read).
public struct ResolvedItem: Sendable, Equatable {
    /// The item as `ListItems` describes it; only its path when the collection was never unlocked.
    public var item: ItemSummary
    /// The collection holding it.
    public var collection: CollectionStatus
}

/// Turns an ``ItemReference`` into exactly one item, or fails with exit status 4 saying why.
public struct ItemResolver: Sendable {
    private let directory: any ItemDirectory

    /// A resolver that asks `directory`.
    public init(directory: any ItemDirectory) {
        self.directory = directory
    }

    /// The one item `reference` names.
    ///
    /// Attributes are matched by the Secret Service's `SearchItems`, as `secret-tool` matches them:
    /// its blind index finds items of locked collections too, even before their first unlock. A
    /// locked *private* collection keeps no index and reveals nothing, so its items cannot match;
    /// when nothing else does, the message names it.
    ///
    /// - Throws: ``ClientError/notInitialized``; ``ClientError/noSuchCollection(_:)`` or
    ///   ``ClientError/noSuchItem(_:)`` for a path or number that names nothing;
    ///   ``ClientError/noMatch(query:unsearched:)`` and ``ClientError/ambiguous(query:candidates:)``
    ///   when attributes match no item or several; whatever the directory's calls throw.
    public func resolve(_ reference: ItemReference) async throws(ClientError) -> ResolvedItem {
        let status = try await directory.status()
        guard status.isInitialized else { throw .notInitialized }
        switch reference {
        case .path(let path):
            // Paths carry the collection id encoded; comparing encoded forms avoids decoding.
            guard let parts = SecretPaths.itemParts(of: path),
                let collection = status.collections.first(where: {
                    SecretPaths.encode($0.id) == parts.collectionElement
                })
            else { throw .noSuchItem(reference.text) }
            return try await item(at: path, in: collection, reference)
        case .number(let id, let number):
            guard let collection = status.collection(id) else { throw .noSuchCollection(id) }
            return try await item(at: SecretPaths.item(id, number: number), in: collection, reference)
        case .attributes(let query):
            return try await match(query, status: status, reference)
        }
    }

    /// Candidates in the order the ambiguity message lists them: oldest first; an item whose time
    /// is unknown (its collection was never unlocked) after every dated one; ties keep the order
    /// given, which is the daemon's (collections in `Status` order, items in creation order).
    public static func oldestFirst(_ items: [ItemSummary]) -> [ItemSummary] {
        items.enumerated()
            .sorted { ($0.element.created ?? .max, $0.offset) < ($1.element.created ?? .max, $1.offset) }
            .map(\.element)
    }

    private func item(
        at path: String, in collection: CollectionStatus, _ reference: ItemReference
    ) async throws(ClientError) -> ResolvedItem {
        let items = try await directory.listItems(in: collection.id)
        guard let item = items.first(where: { $0.path == path }) else { throw .noSuchItem(reference.text) }
        return ResolvedItem(item: item, collection: collection)
    }

    private func match(
        _ query: [String: String], status: VaultStatus, _ reference: ItemReference
    ) async throws(ClientError) -> ResolvedItem {
        let found = try await directory.searchItems(query)
        let paths = found.unlocked + found.locked
        var candidates: [ResolvedItem] = []
        // One ListItems per collection that holds a match, for labels and times; none otherwise.
        for collection in status.collections {
            let prefix = SecretPaths.collection(collection.id) + "/"
            let matched = paths.filter { $0.hasPrefix(prefix) }
            guard !matched.isEmpty else { continue }
            var listed: [String: ItemSummary] = [:]
            for item in try await directory.listItems(in: collection.id) { listed[item.path] = item }
            for path in matched {
                let item = listed[path] ?? ItemSummary(collection: collection.id, path: path)
                candidates.append(ResolvedItem(item: item, collection: collection))
            }
        }
        guard candidates.count != 1 else { return candidates[0] }
        if candidates.isEmpty {
            let unsearched = status.collections.filter { $0.isLocked && $0.isPrivate }.map(\.id)
            throw .noMatch(query: reference.text, unsearched: unsearched)
        }
        throw .ambiguous(query: reference.text, candidates: Self.oldestFirst(candidates.map(\.item)))
    }
}
