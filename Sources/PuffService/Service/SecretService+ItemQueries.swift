// SPDX-License-Identifier: Apache-2.0
import PuffStore

extension SecretService {
    /// An item's properties; readable while locked (secret-service.md §8).
    ///
    /// - Throws: ``ServiceError/noSuchObject``.
    public func itemInfo(_ id: ItemID) throws(ServiceError) -> ItemInfo {
        let record = try record(of: id)
        return ItemInfo(
            label: record.label, attributes: record.attributes, type: reportedType(of: record),
            isLocked: collectionStates[id.collection]?.isLocked ?? false, created: record.created,
            modified: record.modified)
    }

    /// Finds items whose attributes contain every pair of `query` byte for byte (§6.4).
    ///
    /// An empty query matches every item. Order: unlocked items oldest first (`Created`, ties in
    /// ``collections`` order, then creation order); locked ones in ``collections`` order, then
    /// creation order.
    ///
    /// - Throws: ``ServiceError/limitExceeded(_:)`` for a query with too many pairs.
    public func searchItems(_ query: Attributes) throws(ServiceError) -> (unlocked: [ItemID], locked: [ItemID]) {
        try checkQuery(query)
        var unlocked: [ItemID] = []
        var locked: [ItemID] = []
        for collection in collectionOrder {
            guard let state = collectionStates[collection] else { continue }
            let hits = state.search(query).map { ItemID(collection: collection, number: $0) }
            if state.isLocked { locked += hits } else { unlocked += hits }
        }
        // The oldest first across collections, so a client taking the first match (secret-tool
        // lookup) gets the oldest. Created has one-second resolution: ties keep the collection
        // order, then creation order. Locked items' times are sealed; they keep that order.
        let created = unlocked.map { (try? record(of: $0).created) ?? 0 }
        let oldestFirst = unlocked.indices.sorted { (created[$0], $0) < (created[$1], $1) }.map { unlocked[$0] }
        return (oldestFirst, locked)
    }

    /// Finds matching items in one collection, locked or not, in creation order.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/limitExceeded(_:)``.
    public func searchItems(_ query: Attributes, in collection: CollectionID) throws(ServiceError) -> [ItemID] {
        try checkQuery(query)
        return try state(of: collection).search(query).map { ItemID(collection: collection, number: $0) }
    }

    /// The typed view the active mappers make of the item's attributes, for `puffctl list`;
    /// derived on each call, never stored (docs/vault-format.md, "In memory"). Nil while the
    /// attributes are unknown: the collection was not unlocked since start.
    ///
    /// - Throws: ``ServiceError/noSuchObject``.
    public func typedRecord(of id: ItemID) throws(ServiceError) -> TypedRecord? {
        let record = try record(of: id)
        guard collectionStates[id.collection]?.isOpen == true else { return nil }
        return itemRules.mappers.record(from: record.attributes)
    }
}
