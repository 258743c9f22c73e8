// SPDX-License-Identifier: Apache-2.0

/// One collection's items by number, in creation order.
///
/// Item numbers are handed out in ascending order and never reused, so the items sit in a dense
/// array indexed by number rather than a hash table: at 100,000 items a `[UInt64: StoredItem]`
/// keeps 262,144 buckets of 112 bytes (about 290 bytes an item), this about 104. A deleted item
/// leaves a hole until the items before it are deleted too.
///
/// A number far from the others (a journal whose numbers jump, as a crafted or damaged one's
/// may) would make the array mostly holes, or more than memory holds: such an item is kept aside
/// in a dictionary instead, so memory stays proportional to the items whatever their numbers.
public struct ItemTable: Sendable {
    /// Slot `i` holds item number `firstNumber + i`, or nil where that item was deleted.
    private var slots: [StoredItem?] = []
    private var firstNumber: UInt64 = 1
    /// How many slots hold an item.
    private var slotted = 0
    /// Items whose numbers lie too far from the slots; empty in normal use.
    private var outliers: [UInt64: StoredItem] = [:]
    /// The keys of `outliers`, ascending.
    private var outlierNumbers: [UInt64] = []

    /// Holes the slots may hold beyond twice the items: a few pages' worth.
    static let spareHoles = 4096

    /// An empty table.
    public init() {}

    /// How many items the table holds.
    public var count: Int { slotted + outliers.count }

    /// Whether the table holds no item.
    public var isEmpty: Bool { count == 0 }

    /// The item numbered `number`; setting nil deletes it.
    public subscript(number: UInt64) -> StoredItem? {
        get {
            if let offset = offset(of: number), let item = slots[offset] { return item }
            return outliers.isEmpty ? nil : outliers[number]
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
        guard !outlierNumbers.isEmpty else { return numbers }
        // Two ascending lists without common numbers, merged.
        var merged: [UInt64] = []
        merged.reserveCapacity(count)
        var (dense, aside) = (numbers[...], outlierNumbers[...])
        while let a = dense.first, let b = aside.first {
            if a < b { merged.append(dense.removeFirst()) } else { merged.append(aside.removeFirst()) }
        }
        return merged + dense + aside
    }

    /// Whether every item held satisfies `predicate` (in no particular order; no array is made).
    public func allSatisfy(_ predicate: (StoredItem) -> Bool) -> Bool {
        slots.allSatisfy { $0.map(predicate) ?? true } && outliers.values.allSatisfy(predicate)
    }

    /// The highest number held, if any.
    public var lastNumber: UInt64? {
        let dense = slots.lastIndex(where: { $0 != nil }).map { firstNumber + UInt64($0) }
        guard let aside = outlierNumbers.last else { return dense }
        return max(dense ?? 0, aside)
    }

    /// The slot of `number`, if the slots reach it.
    private func offset(of number: UInt64) -> Int? {
        guard number >= firstNumber, number - firstNumber < UInt64(slots.count) else { return nil }
        return Int(number - firstNumber)
    }

    private mutating func insert(_ item: StoredItem, at number: UInt64) {
        if outliers[number] != nil {
            outliers[number] = item
            return
        }
        if slots.isEmpty {
            firstNumber = number
            slots = [item]
            slotted += 1
            return
        }
        let last = firstNumber + UInt64(slots.count - 1)
        let holes = number < firstNumber ? firstNumber - number - 1 : number > last ? number - last - 1 : 0
        if holes > 0 {
            // At most twice as many holes as items (or a few pages' worth) in the slots.
            let budget = max(Self.spareHoles, 2 * (slotted + 1))
            let existing = slots.count - slotted
            guard existing < budget, holes <= UInt64(budget - existing) else {
                insertAside(item, at: number)
                return
            }
        }
        if number < firstNumber {
            // Only loading out of order gets here; new items always come last.
            slots.insert(contentsOf: repeatElement(nil, count: Int(holes) + 1), at: 0)
            firstNumber = number
        } else if number > last {
            slots.append(contentsOf: repeatElement(nil, count: Int(holes) + 1))
        }
        let offset = Int(number - firstNumber)
        if slots[offset] == nil { slotted += 1 }
        slots[offset] = item
    }

    private mutating func insertAside(_ item: StoredItem, at number: UInt64) {
        outliers[number] = item
        if let last = outlierNumbers.last, last > number {
            outlierNumbers.insert(number, at: Self.firstIndex(notBelow: number, in: outlierNumbers))
        } else {
            outlierNumbers.append(number)
        }
    }

    /// Where `number` is, or would go, in the ascending `numbers` (binary search).
    private static func firstIndex(notBelow number: UInt64, in numbers: [UInt64]) -> Int {
        var (low, high) = (0, numbers.count)
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func remove(_ number: UInt64) {
        if outliers.removeValue(forKey: number) != nil {
            outlierNumbers.remove(at: Self.firstIndex(notBelow: number, in: outlierNumbers))
        } else {
            guard let offset = offset(of: number), slots[offset] != nil else { return }
            slots[offset] = nil
            slotted -= 1
            // Deleting from the front (the oldest items) gives the room back.
            let leading = slots.prefix { $0 == nil }.count
            if leading > 0, leading * 2 >= slots.count || leading >= 4096 {
                slots.removeFirst(leading)
                firstNumber += UInt64(leading)
            }
        }
        if slotted == 0 {
            slots = []
            firstNumber = 1
        }
    }
}
