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
        for number in items.numbers { index.insert(number, attributes: items[number]!.attributes) }
    }

    /// Item numbers in creation order.
    var order: [UInt64] { items.numbers }

    /// How many items the collection holds.
    var count: Int { items.count }

    /// Adds a new item, whose number is higher than every other's.
    func insert(_ item: StoredItem) {
        items[item.number] = item
        index.insert(item.number, attributes: item.attributes)
    }

    /// Overwrites an existing item, re-indexing it when its attributes changed.
    func update(_ item: StoredItem) {
        guard let old = items[item.number] else { return }
        items[item.number] = item
        if !Self.sameBytes(old.attributes, item.attributes) {
            index.remove(item.number, attributes: old.attributes)
            index.insert(item.number, attributes: item.attributes)
        }
    }

    /// Removes an item.
    func remove(_ number: UInt64) {
        guard let old = items[number] else { return }
        items[number] = nil
        index.remove(number, attributes: old.attributes)
    }

    /// Numbers of the items whose attributes include every pair of `query`, in creation order.
    func search(_ query: Attributes) -> [UInt64] {
        guard let candidates = index.candidates(for: query) else { return order }
        return candidates.filter { number in
            guard let attributes = items[number]?.attributes else { return false }
            return query.allSatisfy { pair in attributes[pair.key].map { Self.sameBytes($0, pair.value) } ?? false }
        }
    }

    /// The oldest item whose attribute set is exactly `attributes`, byte for byte.
    func exactMatch(_ attributes: Attributes) -> UInt64? {
        index.candidates(exactly: attributes).first { number in
            items[number].map { Self.sameBytes($0.attributes, attributes) } ?? false
        }
    }

    /// Whether two attribute sets hold the same names and values, byte for byte.
    static func sameBytes(_ a: Attributes, _ b: Attributes) -> Bool {
        a.count == b.count && a.allSatisfy { pair in b[pair.key].map { sameBytes($0, pair.value) } ?? false }
    }

    /// Attributes are compared as bytes (secret-service.md §6.4), not by Unicode equivalence.
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
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
