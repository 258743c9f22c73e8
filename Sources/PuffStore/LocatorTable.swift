// SPDX-License-Identifier: Apache-2.0

/// Record locators by slot, 16 bytes each (design core-reshaped §2, §5): what an item of a
/// collection costs in memory while it is not opened. A slot holds a locator, a hole (no item),
/// or a mark saying the item is held whole elsewhere (``ItemTable``).
public struct LocatorTable: Sendable {
    /// What one slot holds.
    public enum Slot: Equatable, Sendable {
        case hole
        /// The item exists and is held whole (its record is in memory, or it has none).
        case whole
        case at(RecordLocator)
    }

    private var locators: [RecordLocator] = []

    // A record has at least one byte, so length 0 never names one.
    private static let hole = RecordLocator(offset: 0, length: 0, sequence: 0)
    private static let whole = RecordLocator(offset: 1, length: 0, sequence: 0)

    public init() {}

    /// How many slots there are (holes included).
    public var count: Int { locators.count }

    public var isEmpty: Bool { locators.isEmpty }

    public subscript(position: Int) -> Slot {
        get {
            let locator = locators[position]
            if locator.length > 0 { return .at(locator) }
            return locator.offset == Self.whole.offset ? .whole : .hole
        }
        set {
            locators[position] =
                switch newValue {
                case .hole: Self.hole
                case .whole: Self.whole
                case .at(let locator): locator
                }
        }
    }

    /// Adds `count` holes at the end.
    public mutating func appendHoles(_ count: Int) {
        locators.append(contentsOf: repeatElement(Self.hole, count: count))
    }

    /// Adds `count` holes at the start.
    public mutating func prependHoles(_ count: Int) {
        locators.insert(contentsOf: repeatElement(Self.hole, count: count), at: 0)
    }

    /// Removes the first `count` slots.
    public mutating func removeFirst(_ count: Int) {
        locators.removeFirst(count)
    }

    /// How many slots at the start are holes.
    public var leadingHoles: Int { locators.prefix { $0 == Self.hole }.count }

    /// The position of the last slot that is not a hole.
    public var lastFilled: Int? { locators.lastIndex { $0 != Self.hole } }

    /// Removes every slot.
    public mutating func removeAll() { locators = [] }
}
