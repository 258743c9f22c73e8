// SPDX-License-Identifier: Apache-2.0
import DequeModule
import PuffCrypto
import PuffStore

/// One collection's writes that are sealed and queued for its journal but not settled yet, in
/// chain order (design core-reshaped §6). The next write links to the newest of them; checks of
/// later writes that depend on them (the item they change, the keys a `replace` looks up) wait
/// for them; readers see none of them until they settle.
final class PendingWrites {
    /// One queued record and what settling it changes in memory.
    final class Entry {
        /// Its place in the chain, which the next record links to.
        let tip: JournalChain.Tip
        /// The record queued, which the collection keeps as the item's sealed form once settled.
        let record: VaultRecord
        let ticket: AppendTicket
        /// The item it writes or deletes, if any.
        let number: UInt64?
        /// Attribute index keys whose items a later write's checks must not see half-changed: the
        /// old and new attributes' pair and set digests.
        let keys: [Digest128]
        /// Whether it adds an item (counted against the collection's limit meanwhile).
        let creates: Bool
        /// Records it leaves describing nothing live (``CollectionVault/deadRecords``).
        let obsoleting: Int
        /// The in-memory change and its events, made once it is durable, in chain order.
        let apply: (() -> Void)?
        /// Why it failed, once it did (its own flush, or an earlier one of the collection).
        var failure: StoreError?
        /// Whether it was applied.
        var isSettled = false

        init(
            tip: JournalChain.Tip, record: VaultRecord, ticket: AppendTicket, number: UInt64?, keys: [Digest128],
            creates: Bool,
            obsoleting: Int, apply: (() -> Void)?
        ) {
            self.tip = tip
            self.record = record
            self.ticket = ticket
            self.number = number
            self.keys = keys
            self.creates = creates
            self.obsoleting = obsoleting
            self.apply = apply
        }
    }

    private(set) var entries: Deque<Entry> = []
    /// How many pending writes add an item.
    private(set) var creates = 0
    private var numbers: [UInt64: Int] = [:]
    private var keys: [Digest128: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }
    /// The newest pending record's place: where the next record links.
    var tip: JournalChain.Tip? { entries.last?.tip }

    /// Whether a pending write changes item `number`.
    func touches(_ number: UInt64) -> Bool { numbers[number] != nil }

    /// Whether a pending write changes an item filed under any of `keys`.
    func touches(anyOf keys: some Sequence<Digest128>) -> Bool {
        keys.contains { self.keys[$0] != nil }
    }

    func append(_ entry: Entry) {
        entries.append(entry)
        if entry.creates { creates += 1 }
        if let number = entry.number { numbers[number, default: 0] += 1 }
        for key in entry.keys { keys[key, default: 0] += 1 }
    }

    /// Takes the oldest entry off the list.
    func removeFirst() -> Entry? {
        guard let entry = entries.popFirst() else { return nil }
        if entry.creates { creates -= 1 }
        if let number = entry.number { Self.drop(number, from: &numbers) }
        for key in entry.keys { Self.drop(key, from: &keys) }
        return entry
    }

    private static func drop<Key: Hashable>(_ key: Key, from counts: inout [Key: Int]) {
        if let count = counts[key], count > 1 { counts[key] = count - 1 } else { counts[key] = nil }
    }
}
