// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Synchronization

extension ReadView {
    /// `SearchItems` answered on the calling thread as ``SecretService/searchItems(_:)`` answers
    /// it; nil (the actor answers) before the vault is ready, for an empty query or one over the
    /// limit, for more than ``batchLimit`` unlocked hits, or when an unlocked hit's creation time
    /// cannot be read here.
    public func search(_ query: Attributes) -> (unlocked: [ItemID], locked: [ItemID])? {
        guard isReady, !query.isEmpty, query.count <= queryLimit else { return nil }
        let order = collections.withLock { $0.order }
        var unlocked: [ItemID] = []
        var locked: [ItemID] = []
        for (id, collection) in order {
            let hits = collection.read { collection in (collection.search(query), collection.isLocked) }
            let ids = hits.0.map { ItemID(collection: id, number: $0) }
            if hits.1 { locked += ids } else { unlocked += ids }
            guard unlocked.count <= Self.batchLimit else { return nil }
        }
        guard unlocked.count > 1 else { return (unlocked, locked) }
        // The oldest first across collections (ties: collection order, then creation order).
        var created: [UInt64] = []
        for id in unlocked {
            guard let collection = collections.withLock({ $0.byID[id.collection] }),
                let time = collection.read({ Self.created(id, in: $0) })
            else { return nil }
            created.append(time)
        }
        let oldestFirst = unlocked.indices.sorted { (created[$0], $0) < (created[$1], $1) }.map { unlocked[$0] }
        return (oldestFirst, locked)
    }

    /// When item `id` was created: from memory once it was opened, else from its record, opened
    /// here and not kept; nil when the collection is not open or the record does not open.
    private static func created(_ id: ItemID, in collection: CollectionVault.ReadableCollection) -> UInt64? {
        guard let item = collection.items[id.number], let key = collection.key else { return nil }
        if item.isOpened { return item.created }
        guard let space = key.space else { return nil }
        return try? CollectionVault.opened(
            item, space: space, sealer: key.sealer, format: key.format, from: key.records
        )
        .created
    }
}
