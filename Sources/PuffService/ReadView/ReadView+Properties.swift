// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Synchronization

extension ReadView {
    /// Item `id`'s properties as ``SecretService/itemInfo(_:)`` gives them, read on the calling
    /// thread; nil (the actor answers) before the vault is ready, for an unknown item, or one
    /// whose collection is not open and unlocked, or whose record does not open here (the actor
    /// then names the damage). An item not opened yet is opened from its record and not kept:
    /// the actor alone decides what stays opened.
    public func itemInfo(_ id: ItemID) -> ItemInfo? {
        guard isReady, let collection = collections.withLock({ $0.byID[id.collection] }) else { return nil }
        return collection.read { collection -> ItemInfo? in
            guard let key = collection.key, let stored = collection.items[id.number] else { return nil }
            var item = stored
            if !item.isOpened {
                guard let space = key.space, !item.record.isNone,
                    let opened = try? CollectionVault.opened(
                        item, space: space, sealer: key.sealer, format: key.format, from: key.records)
                else { return nil }
                item = opened
            }
            return ItemInfo(
                label: item.label, attributes: item.attributes, type: item.reportedType, isLocked: false,
                created: item.created, modified: item.modified)
        }
    }
}
