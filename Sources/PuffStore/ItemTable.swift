// SPDX-License-Identifier: Apache-2.0

/// One collection's items by number, in creation order.
///
/// Item numbers are handed out in ascending order and never reused, so the items sit in a dense
/// array indexed by number rather than a hash table. An item that is not opened (label and
/// attributes not read) and whose record is in the journal is only its locator there: 16 bytes
/// (``LocatorTable``; design core-reshaped §5); read back, it is its locked form. Opened items,
/// and items whose record is in memory or who have none, are held whole beside the slots. A
/// deleted item leaves a hole until the items before it are deleted too.
///
/// A number far from the others (a journal whose numbers jump, as a crafted or damaged one's
/// may) would make the array mostly holes, or more than memory holds: such an item is kept aside
/// in a dictionary instead, so memory stays proportional to the items whatever their numbers.
public struct ItemTable: Sendable {
    /// Slot `i` holds item number `firstNumber + i`'s locator, or a hole where there is none.
    private var slots = LocatorTable()
    /// Items held whole, by number (their slot says `.whole`, or holds their record's locator).
    private var whole: [UInt64: StoredItem] = [:]
    /// The collection of items read back from a locator alone.
    private var collection = ""
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
            if let offset = offset(of: number) {
                switch slots[offset] {
                case .hole: break
                case .whole: return whole[number]
                case .at(let locator): return whole[number] ?? locked(number, at: locator)
                }
            }
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

    /// How many items are held whole (opened, or without a locator).
    public var wholeCount: Int { whole.count }

    /// The locked form of item `number`, whose record is at `locator`.
    private func locked(_ number: UInt64, at locator: RecordLocator) -> StoredItem {
        var item = StoredItem(
            collection: collection, number: number, label: "", attributes: [:], type: "", contentType: "",
            sealedSecret: [], created: 0, modified: 0)
        item.record = .at(locator)
        item.isOpened = false
        return item
    }

    /// The numbers of the items held, ascending (creation order).
    public var numbers: [UInt64] {
        var numbers: [UInt64] = []
        numbers.reserveCapacity(count)
        for offset in 0..<slots.count where slots[offset] != .hole { numbers.append(firstNumber + UInt64(offset)) }
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
        (0..<slots.count).allSatisfy { offset in
            slots[offset] == .hole || self[firstNumber + UInt64(offset)].map(predicate) ?? true
        } && outliers.values.allSatisfy(predicate)
    }

    /// The highest number held, if any.
    public var lastNumber: UInt64? {
        let dense = slots.lastFilled.map { firstNumber + UInt64($0) }
        guard let aside = outlierNumbers.last else { return dense }
        return max(dense ?? 0, aside)
    }

    /// The slot of `number`, if the slots reach it.
    private func offset(of number: UInt64) -> Int? {
        guard number >= firstNumber, number - firstNumber < UInt64(slots.count) else { return nil }
        return Int(number - firstNumber)
    }

    /// Puts `item` in slot `offset`: its locator alone when it is not opened, else whole too.
    private mutating func place(_ item: StoredItem, at offset: Int) {
        if collection.isEmpty { collection = item.collection }
        if case .at(let locator) = item.record {
            slots[offset] = .at(locator)
            whole[item.number] = item.isOpened || item.collection != collection ? item : nil
        } else {
            slots[offset] = .whole
            whole[item.number] = item
        }
    }

    private mutating func insert(_ item: StoredItem, at number: UInt64) {
        if outliers[number] != nil {
            outliers[number] = item
            return
        }
        if slots.isEmpty {
            firstNumber = number
            slots.appendHoles(1)
            place(item, at: 0)
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
            slots.prependHoles(Int(holes) + 1)
            firstNumber = number
        } else if number > last {
            slots.appendHoles(Int(holes) + 1)
        }
        let offset = Int(number - firstNumber)
        if slots[offset] == .hole { slotted += 1 }
        place(item, at: offset)
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
            guard let offset = offset(of: number), slots[offset] != .hole else { return }
            slots[offset] = .hole
            whole[number] = nil
            slotted -= 1
            // Deleting from the front (the oldest items) gives the room back.
            let leading = slots.leadingHoles
            if leading > 0, leading * 2 >= slots.count || leading >= 4096 {
                slots.removeFirst(leading)
                firstNumber += UInt64(leading)
            }
        }
        if slotted == 0 {
            slots.removeAll()
            whole = [:]
            firstNumber = 1
        }
    }
}
