// SPDX-License-Identifier: Apache-2.0
package import PuffStore

/// What a lock change did to what a collection shows besides `Locked`, with the collection's items
/// as they were at that moment, so the bus can tell clients about the items it chooses without
/// asking the service again (docs/design/core-reshaped.md §3).
///
/// The items are a copy-on-write snapshot: taking it costs nothing, and it is dropped once the
/// bus has rendered its signals. Two views are equal when they announce the same change; the
/// snapshot they carry is not compared (read it through ``itemProperties(of:locked:)``).
public struct LockView: Sendable, Equatable {
    /// The collection's properties that changed beside `Locked`: its label and modification time
    /// when an unlock read them (docs/collections.md); empty otherwise.
    public let collection: [CollectionProperty]
    /// Whether items' labels, attributes, types and times became readable with the change, so
    /// that item signals carry them too.
    public let itemsReadable: Bool
    private let items: ItemTable
    /// Opens an item whose record was not opened yet (an unlock opens none: issue 27 item 1),
    /// for the items a signal names.
    private let opener: (@Sendable (StoredItem) -> StoredItem)?

    package init(
        collection: [CollectionProperty], itemsReadable: Bool, items: ItemTable,
        opener: (@Sendable (StoredItem) -> StoredItem)? = nil
    ) {
        self.collection = collection
        self.itemsReadable = itemsReadable
        self.items = items
        self.opener = opener
    }

    /// A change of `Locked` alone, with no items (what tests compare against).
    public static let lockedOnly = LockView(collection: [], itemsReadable: false, items: ItemTable())

    /// A change that made the collection's and its items' properties readable, with no items
    /// (what tests compare against).
    public static func readable(_ collection: [CollectionProperty]) -> LockView {
        LockView(collection: collection, itemsReadable: true, items: ItemTable())
    }

    /// The numbers of the collection's items, ascending.
    public var itemNumbers: [UInt64] { items.numbers }

    /// How many items the collection held.
    public var itemCount: Int { items.count }

    /// The item properties to announce for item `number`: `Locked`, and when ``itemsReadable``
    /// its label, attributes, type and times too; nil when the collection held no such item.
    public func itemProperties(of number: UInt64, locked: Bool) -> [ItemProperty]? {
        guard var record = items[number] else { return nil }
        guard itemsReadable else { return [.locked(locked)] }
        if !record.isOpened, let opener { record = opener(record) }
        return [
            .locked(locked), .label(record.label), .attributes(record.attributes), .type(record.reportedType),
            .created(record.created), .modified(record.modified),
        ]
    }

    public static func == (lhs: LockView, rhs: LockView) -> Bool {
        lhs.collection == rhs.collection && lhs.itemsReadable == rhs.itemsReadable
    }
}

extension StoredItem {
    /// The `Type` a client sees: `xdg:schema` when present, else the stored type (secret-service.md §9.2).
    var reportedType: String {
        attributeList.value(named: "xdg:schema") ?? type
    }
}
