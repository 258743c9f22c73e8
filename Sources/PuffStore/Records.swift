// SPDX-License-Identifier: Apache-2.0

/// One collection as persisted: everything except its items and its lock state.
public struct StoredCollection: Sendable, Equatable {
    /// The collection identifier, for example `"login"` or `"My_Coll"` (secret-service.md §1.3).
    public var id: String
    /// The user-visible label.
    public var label: String
    /// Creation time, seconds since the epoch.
    public var created: UInt64
    /// Last modification time, seconds since the epoch.
    public var modified: UInt64
    /// The number the next new item gets; a high-water mark, so numbers are never reused.
    public var nextItemNumber: UInt64

    /// Creates a collection record.
    public init(id: String, label: String, created: UInt64, modified: UInt64, nextItemNumber: UInt64 = 1) {
        self.id = id
        self.label = label
        self.created = created
        self.modified = modified
        self.nextItemNumber = nextItemNumber
    }
}

/// Where an item's newest journal record is: in the journal at a locator (read when a call
/// touches the item), in memory (appended by a write that did not learn where it went), or
/// nowhere (an item of the in-memory `session` collection).
public enum ItemRecord: Sendable {
    case none
    case bytes([UInt8])
    case at(RecordLocator)

    /// Whether the item has no record.
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}

/// One item as a collection holds it: where its journal record is (``record``), and once opened
/// its label, attributes, type and times (``isOpened``).
///
/// An item read from the journal, or written since start, holds its newest record's locator (or,
/// rarely, the record itself), read and opened again whenever its secret is read
/// (docs/vault-format.md, "In memory"); only an item of the in-memory `session` collection holds
/// its secret sealed on its own (``sealedSecret``), since it has no record.
public struct StoredItem: Sendable {
    /// The identifier of the collection that holds the item.
    public var collection: String
    /// The item's number inside its collection (the last path element on the bus).
    public var number: UInt64
    /// The user-visible label.
    public var label: String
    /// The lookup attributes, verbatim as the client sent them, kept compactly.
    public var attributeList: AttributeList
    /// The lookup attributes as a dictionary (built on each read).
    public var attributes: [String: String] {
        get { attributeList.dictionary }
        set { attributeList = AttributeList(newValue) }
    }
    /// The gnome-keyring `Type` extension; `""` when never set.
    public var type: String
    /// The content type exactly as the client sent it.
    public var contentType: String
    /// The secret alone, sealed (AEAD) under the collection's record key and bound to the item,
    /// for an item that has no ``record`` (the `session` collection, or a change not stored yet);
    /// empty otherwise.
    public var sealedSecret: [UInt8]
    /// Where the item's newest journal record is (docs/vault-format.md, Records); none for an
    /// item of the `session` collection.
    public var record = ItemRecord.none
    /// Whether label, attributes, type and times were read from the record (or set by a write):
    /// false while the record was not opened (locked, or not touched since the unlock).
    public var isOpened = true
    /// Creation time, seconds since the epoch.
    public var created: UInt64
    /// Last modification time, seconds since the epoch.
    public var modified: UInt64

    /// Creates an item record.
    public init(
        collection: String, number: UInt64, label: String, attributes: [String: String], type: String,
        contentType: String, sealedSecret: [UInt8], created: UInt64, modified: UInt64
    ) {
        self.collection = collection
        self.number = number
        self.label = label
        attributeList = AttributeList(attributes)
        self.type = type
        self.contentType = contentType
        self.sealedSecret = sealedSecret
        self.created = created
        self.modified = modified
    }
}
