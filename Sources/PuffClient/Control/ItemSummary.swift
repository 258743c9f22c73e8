// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// One item as `ListItems` describes it: never its secret.
///
/// A locked collection that was never unlocked since the daemon started lists paths only, so
/// every field but ``path`` may be absent.
public struct ItemSummary: Sendable, Equatable {
    /// The collection the item belongs to (the one `ListItems` was asked about).
    public var collection: String
    /// The item's object path on the Secret Service.
    public var path: String
    /// The item's display name.
    public var label: String?
    /// The lookup attributes, verbatim.
    public var attributes: [String: String]?
    /// Seconds since the Unix epoch.
    public var created: UInt64?
    /// Seconds since the Unix epoch.
    public var modified: UInt64?
    /// Whether the item's collection is locked.
    public var isLocked: Bool?
    /// What the daemon's schema mappers make of the attributes: `internet`, `generic`, `note` or
    /// `other`; nil when the daemon does not know the attributes.
    public var kind: String?
    /// The typed fields of ``kind`` that are present (`protocol`, `server`, `user`, `port`,
    /// `path`, `domain`, `authtype`; `service`, `account`), the port in decimal.
    public var fields: [String: String]?

    /// Creates a summary from its parts.
    public init(
        collection: String, path: String, label: String? = nil, attributes: [String: String]? = nil,
        created: UInt64? = nil, modified: UInt64? = nil, isLocked: Bool? = nil, kind: String? = nil,
        fields: [String: String]? = nil
    ) {
        self.collection = collection
        self.path = path
        self.label = label
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.isLocked = isLocked
        self.kind = kind
        self.fields = fields
    }

    /// Decodes the `aa{sv}` reply body of `ListItems` for `collection`.
    ///
    /// - Throws: ``ClientError/unexpectedReply(member:)`` when the body has another shape or an
    ///   item has no path.
    public static func list(reply arguments: [DBusValue], collection: String) throws(ClientError) -> [ItemSummary] {
        guard arguments.count == 1, case .array(_, let entries) = arguments[0] else {
            throw .unexpectedReply(member: "ListItems")
        }
        var items: [ItemSummary] = []
        items.reserveCapacity(entries.count)
        for entry in entries {
            guard let dictionary = entry.variantDictionary else { throw .unexpectedReply(member: "ListItems") }
            let fields = ReplyFields(dictionary, member: "ListItems")
            guard let path = try fields.objectPath(ControlKey.path) else { throw .unexpectedReply(member: "ListItems") }
            items.append(
                ItemSummary(
                    collection: collection, path: path, label: try fields.string(ControlKey.label),
                    attributes: try fields.stringDictionary(ControlKey.attributes),
                    created: try fields.uint64(ControlKey.created),
                    modified: try fields.uint64(ControlKey.modified), isLocked: try fields.bool(ControlKey.locked),
                    kind: try fields.string(ControlKey.kind), fields: try fields.stringDictionary(ControlKey.fields)
                )
            )
        }
        return items
    }
}

/// Encodes with the key names of the `ListItems` reply, plus `collection`; `fields` as an object
/// whose `port` is a number.
extension ItemSummary: Encodable {
    /// Encodes the keys that are present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        try container.encode(collection, forKey: ContractKey("collection"))
        try container.encode(path, forKey: ContractKey(ControlKey.path))
        try container.encodeIfPresent(label, forKey: ContractKey(ControlKey.label))
        try container.encodeIfPresent(attributes, forKey: ContractKey(ControlKey.attributes))
        try container.encodeIfPresent(created, forKey: ContractKey(ControlKey.created))
        try container.encodeIfPresent(modified, forKey: ContractKey(ControlKey.modified))
        try container.encodeIfPresent(isLocked, forKey: ContractKey(ControlKey.locked))
        try container.encodeIfPresent(kind, forKey: ContractKey(ControlKey.kind))
        try container.encodeIfPresent(fields.map(TypedFields.init), forKey: ContractKey(ControlKey.fields))
    }
}
