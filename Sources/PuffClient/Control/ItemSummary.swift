// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

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

    /// Creates a summary from its parts.
    public init(
        collection: String, path: String, label: String? = nil, attributes: [String: String]? = nil,
        created: UInt64? = nil, modified: UInt64? = nil, isLocked: Bool? = nil
    ) {
        self.collection = collection
        self.path = path
        self.label = label
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.isLocked = isLocked
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
            guard let path = try fields.objectPath("path") else { throw .unexpectedReply(member: "ListItems") }
            items.append(
                ItemSummary(
                    collection: collection, path: path, label: try fields.string("label"),
                    attributes: try fields.stringDictionary("attributes"), created: try fields.uint64("created"),
                    modified: try fields.uint64("modified"), isLocked: try fields.bool("locked")
                )
            )
        }
        return items
    }
}

/// Encodes with the key names of the `ListItems` reply, plus `collection`.
extension ItemSummary: Encodable {
    private enum CodingKeys: String, CodingKey {
        case collection, path, label, attributes, created, modified
        case isLocked = "locked"
    }
}
