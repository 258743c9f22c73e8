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
    /// The secret, sealed (AEAD) by the service under a key the backend never sees; a backend
    /// stores these bytes as they are.
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

/// One change in a ``VaultBackend/commit(_:)`` batch.
public enum RecordChange: Sendable {
    /// Inserts or overwrites a collection record.
    case putCollection(StoredCollection)
    /// Removes a collection together with all of its items.
    case deleteCollection(id: String)
    /// Inserts or overwrites an item record.
    case putItem(StoredItem)
    /// Removes one item.
    case deleteItem(collection: String, number: UInt64)
    /// Points an alias at a collection, or removes it when `collection` is nil.
    case setAlias(name: String, collection: String?)
}

/// Everything a backend holds, as returned by ``VaultBackend/load()``.
public struct VaultSnapshot: Sendable {
    /// Collection records keyed by identifier.
    public var collections: [String: StoredCollection]
    /// Item records keyed by collection identifier, then by item number.
    public var items: [String: ItemTable]
    /// Alias name → collection identifier.
    public var aliases: [String: String]

    /// Creates a snapshot; the default is an empty vault.
    public init(
        collections: [String: StoredCollection] = [:],
        items: [String: ItemTable] = [:],
        aliases: [String: String] = [:]
    ) {
        self.collections = collections
        self.items = items
        self.aliases = aliases
    }

    /// Applies `changes` in order, or throws without having changed anything.
    ///
    /// Checks the whole batch first and then changes the snapshot in place, so a commit costs the
    /// same however many records the snapshot holds.
    ///
    /// - Throws: ``StoreError/invalidChange(_:)`` when an item names a missing collection.
    public mutating func apply(_ changes: [RecordChange]) throws(StoreError) {
        var live = Set<String>()
        var gone = Set<String>()
        for change in changes {
            switch change {
            case .putCollection(let collection):
                live.insert(collection.id)
                gone.remove(collection.id)
            case .deleteCollection(let id):
                gone.insert(id)
                live.remove(id)
            case .putItem(let item):
                let exists =
                    live.contains(item.collection)
                    || (!gone.contains(item.collection) && collections[item.collection] != nil)
                guard exists else { throw .invalidChange("item for unknown collection") }
            case .deleteItem, .setAlias:
                break
            }
        }
        for change in changes {
            switch change {
            case .putCollection(let collection):
                collections[collection.id] = collection
            case .deleteCollection(let id):
                collections[id] = nil
                items[id] = nil
            case .putItem(let item):
                items[item.collection, default: ItemTable()][item.number] = item
            case .deleteItem(let collection, let number):
                items[collection]?[number] = nil
            case .setAlias(let name, let collection):
                aliases[name] = collection
            }
        }
    }
}
