// SPDX-License-Identifier: Apache-2.0
public import PuffService
import Synchronization

/// Which items' properties each connection has read, so a lock change tells each connection
/// about exactly those items (docs/design/core-reshaped.md §3, secret-service.md §7).
///
/// A client caches an item's `Locked` only in a proxy, and a GDBusProxy (libsecret's
/// `SecretItem`) reads `GetAll` on the item's path when it is made: a connection that never read
/// an item's properties holds no value to update. Entries are kept, per connection and per
/// collection, until the connection leaves the bus (``forget(_:)``).
///
/// It also keeps each collection's lock state as last announced: a read that resolved its item
/// before a lock change and notes itself after it answers the new state, since no signal will
/// reach it (one noted before the change gets the signal).
public final class PropertyReaders: Sendable {
    private struct State {
        var readers: [String: [CollectionID: ItemNumbers]] = [:]
        var announced: [CollectionID: Bool] = [:]
    }

    private let state = Mutex(State())

    /// No reader yet.
    public init() {}

    /// Notes that connection `reader` read properties of `item`.
    ///
    /// - Returns: The item's collection's lock state as last announced; nil when none was.
    @discardableResult
    public func noteRead(_ item: ItemID, by reader: String) -> Bool? {
        state.withLock { state in
            state.readers[reader, default: [:]][item.collection, default: ItemNumbers()].insert(item.number)
            return state.announced[item.collection]
        }
    }

    /// Forgets what `reader` read: it left the bus.
    public func forget(_ reader: String) {
        _ = state.withLock { $0.readers.removeValue(forKey: reader) }
    }

    /// Notes that `collection` was locked or unlocked.
    ///
    /// - Returns: Per connection that read some of its items' properties, those items' numbers
    ///   (ascending), connections in no particular order.
    public func lockChanged(_ collection: CollectionID, locked: Bool) -> [(reader: String, numbers: [UInt64])] {
        state.withLock { state in
            state.announced[collection] = locked
            return state.readers.compactMap { reader, collections in
                guard let numbers = collections[collection], !numbers.isEmpty else { return nil }
                return (reader, numbers.sorted)
            }
        }
    }

    /// Forgets `collection`: it was deleted (or hidden again), and a collection created later
    /// under the same name starts with no readers.
    public func collectionGone(_ collection: CollectionID) {
        state.withLock { state in
            state.announced[collection] = nil
            for reader in state.readers.keys { state.readers[reader]?[collection] = nil }
        }
    }

    /// How many item numbers are noted for `reader` in all (tests).
    public func count(of reader: String) -> Int {
        state.withLock { $0.readers[reader]?.values.reduce(0) { $0 + $1.count } ?? 0 }
    }
}

/// A set of item numbers: one bit each below ``bitmapLimit`` (item numbers are handed out in
/// ascending order from 1, so this is where they are), a hash set beyond (a crafted journal's
/// far numbers), so memory stays proportional to what was read.
struct ItemNumbers: Sendable {
    /// 2^22 numbers, at most 512 KiB of bits per connection and collection.
    static let bitmapLimit: UInt64 = 1 << 22
    private var words: [UInt64] = []
    private var far: Set<UInt64> = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func insert(_ number: UInt64) {
        guard number < Self.bitmapLimit else {
            if far.insert(number).inserted { count += 1 }
            return
        }
        let (word, bit) = (Int(number / 64), number % 64)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        let mask: UInt64 = 1 << bit
        if words[word] & mask == 0 {
            words[word] |= mask
            count += 1
        }
    }

    /// The numbers, ascending.
    var sorted: [UInt64] {
        var numbers: [UInt64] = []
        numbers.reserveCapacity(count)
        for (index, word) in words.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                numbers.append(UInt64(index) * 64 + UInt64(rest.trailingZeroBitCount))
                rest &= rest - 1
            }
        }
        return numbers + far.sorted()
    }
}
