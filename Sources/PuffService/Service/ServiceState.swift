// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// A collection as the service holds it: its record, lock state, items and their attribute index.
///
/// A class, so that the service updates it in place: as a struct in a dictionary, any copy taken
/// while reading would make the next write copy every item (architecture.md Part A item 9).
/// Owned and touched only by the ``SecretService`` actor.
final class CollectionState {
    var record: StoredCollection
    var isLocked = false
    /// Seals and opens this collection's secrets.
    let sealer: SecretSealer
    /// The items by number; numbers only grow, so number order is creation order.
    private(set) var items: ItemTable
    private var index: AttributeIndex

    init(record: StoredCollection, items: ItemTable, sealer: SecretSealer = SecretSealer()) {
        self.items = items
        self.sealer = sealer
        index = AttributeIndex()
        var record = record
        // Never hand out a number a stored item already has, even if the counter was not saved.
        record.nextItemNumber = max(record.nextItemNumber, (items.lastNumber ?? 0) + 1, 1)
        self.record = record
        for number in items.numbers { index.insert(number, attributes: items[number]!.attributeList) }
    }

    /// Item numbers in creation order.
    var order: [UInt64] { items.numbers }

    /// How many items the collection holds.
    var count: Int { items.count }

    /// Adds a new item, whose number is higher than every other's.
    func insert(_ item: StoredItem) {
        items[item.number] = item
        index.insert(item.number, attributes: item.attributeList)
    }

    /// Overwrites an existing item, re-indexing it when its attributes changed.
    func update(_ item: StoredItem) {
        guard let old = items[item.number] else { return }
        items[item.number] = item
        if !old.attributeList.hasSameBytes(as: item.attributeList) {
            index.remove(item.number, attributes: old.attributeList)
            index.insert(item.number, attributes: item.attributeList)
        }
    }

    /// Removes an item.
    func remove(_ number: UInt64) {
        guard let old = items[number] else { return }
        items[number] = nil
        index.remove(number, attributes: old.attributeList)
    }

    /// Numbers of the items whose attributes include every pair of `query`, in creation order.
    func search(_ query: Attributes) -> [UInt64] {
        guard let candidates = index.candidates(for: query) else { return order }
        return candidates.filter { items[$0]?.attributeList.contains(query) ?? false }
    }

    /// The oldest item whose attribute set is exactly `attributes`, byte for byte.
    func exactMatch(_ attributes: Attributes) -> UInt64? {
        let wanted = AttributeList(attributes)
        return index.candidates(exactly: wanted).first { items[$0]?.attributeList.hasSameBytes(as: wanted) ?? false }
    }
}

/// An open transfer session.
struct Session: Sendable {
    enum Transport: Sendable {
        case plain
        /// The AES key agreed by DH; dropped (and wiped) when the session goes.
        case dh(key: SecureBytes)
    }

    let owner: ClientID
    let transport: Transport
}

/// A prompt handed out by `Unlock` that has not completed yet.
struct PendingPrompt: Sendable {
    /// A locked collection and the caller's spelling that led to it.
    struct Target: Sendable {
        let collection: CollectionID
        let spelling: String
    }

    let owner: ClientID
    let targets: [Target]
    /// Runs the prompter; set by `startPrompt`.
    var work: Task<Void, Never>?
    /// Dismisses the prompt when the timeout expires.
    var timer: Task<Void, Never>?
}
