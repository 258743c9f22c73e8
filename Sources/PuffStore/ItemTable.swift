// SPDX-License-Identifier: Apache-2.0

/// One collection's items by number, in creation order.
///
/// Item numbers are handed out in ascending order and never reused, so the items sit in a dense
/// array indexed by number rather than a hash table: at 100,000 items a `[UInt64: StoredItem]`
/// keeps 262,144 buckets of 112 bytes (about 290 bytes an item), this about 104. A deleted item
/// leaves a hole until the items before it are deleted too.
public struct ItemTable: Sendable {
    /// Slot `i` holds item number `firstNumber + i`, or nil where that item was deleted.
    private var slots: [StoredItem?] = []
    private var firstNumber: UInt64 = 1
    /// How many items the table holds.
    public private(set) var count = 0

    /// An empty table.
    public init() {}

    /// Whether the table holds no item.
    public var isEmpty: Bool { count == 0 }

    /// The item numbered `number`; setting nil deletes it.
    public subscript(number: UInt64) -> StoredItem? {
        get {
            guard number >= firstNumber, number - firstNumber < UInt64(slots.count) else { return nil }
            return slots[Int(number - firstNumber)]
        }
        set {
            if let newValue {
                insert(newValue, at: number)
            } else {
                remove(number)
            }
        }
    }

    /// The numbers of the items held, ascending (creation order).
    public var numbers: [UInt64] {
        var numbers: [UInt64] = []
        numbers.reserveCapacity(count)
        for (offset, slot) in slots.enumerated() where slot != nil { numbers.append(firstNumber + UInt64(offset)) }
        return numbers
    }

    /// The highest number held, if any.
    public var lastNumber: UInt64? {
        guard let offset = slots.lastIndex(where: { $0 != nil }) else { return nil }
        return firstNumber + UInt64(offset)
    }

    private mutating func insert(_ item: StoredItem, at number: UInt64) {
        if slots.isEmpty { firstNumber = number }
        if number < firstNumber {
            // Only loading out of order gets here; new items always come last.
            slots.insert(contentsOf: repeatElement(nil, count: Int(firstNumber - number)), at: 0)
            firstNumber = number
        }
        let offset = Int(number - firstNumber)
        if offset >= slots.count { slots.append(contentsOf: repeatElement(nil, count: offset - slots.count + 1)) }
        if slots[offset] == nil { count += 1 }
        slots[offset] = item
    }

    private mutating func remove(_ number: UInt64) {
        guard number >= firstNumber, number - firstNumber < UInt64(slots.count) else { return }
        let offset = Int(number - firstNumber)
        guard slots[offset] != nil else { return }
        slots[offset] = nil
        count -= 1
        // Deleting from the front (the oldest items) gives the room back.
        let leading = slots.prefix { $0 == nil }.count
        if leading > 0, leading * 2 >= slots.count || leading >= 4096 {
            slots.removeFirst(leading)
            firstNumber += UInt64(leading)
        }
        if count == 0 {
            slots = []
            firstNumber = 1
        }
    }
}
