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

/// One item as persisted, its secret sealed.
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
    /// The secret alone, sealed (AEAD) under the collection's record key and bound to the item: how
    /// an unlocked collection holds it in memory (docs/vault-format.md, "In memory").
    public var sealedSecret: [UInt8]
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
