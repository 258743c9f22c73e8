// SPDX-License-Identifier: Apache-2.0
import PuffStore

/// Looking up collections and items by identifier, for every part of the service.
extension SecretService {
    /// The collection's state, or ``ServiceError/noSuchObject``.
    func state(of collection: CollectionID) throws(ServiceError) -> CollectionVault {
        guard let state = collectionStates[collection] else { throw .noSuchObject }
        return state
    }

    /// The item record, or ``ServiceError/noSuchObject``.
    func record(of item: ItemID) throws(ServiceError) -> StoredItem {
        guard let record = collectionStates[item.collection]?.items[item.number] else { throw .noSuchObject }
        return record
    }

    /// The item ids of a collection in creation order; empty for an unknown collection.
    public func itemIDs(in collection: CollectionID) -> [ItemID] {
        collectionStates[collection]?.order.map { ItemID(collection: collection, number: $0) } ?? []
    }

    /// The `Type` a client sees: `xdg:schema` when present, else the stored type (secret-service.md §9.2).
    func reportedType(of record: StoredItem) -> String {
        record.reportedType
    }
}
