// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffProtocol

/// One item as it crosses between Puff and another password store: what every foreign format is
/// read into and written from (docs/migration.md). Holds no D-Bus and no vault types, so readers
/// and writers are tested on bytes alone.
public struct PortableItem: Sendable {
    /// The item's label, exactly as the source has it.
    public var label: String
    /// The item's attributes, exact names and values (an explicit `xdg:schema` among them).
    public var attributes: [String: String]
    /// The secret's exact bytes, in secure memory.
    public var secret: SecureBytes
    /// The secret's content type, as the Secret Service carries it.
    public var contentType: String
    /// Seconds since the Unix epoch; nil where the source keeps none (the import's time is used).
    public var created: UInt64?
    /// Seconds since the Unix epoch; nil where the source keeps none.
    public var modified: UInt64?
    /// What of the source item did not cross, in words shown to the person (an attachment, a field).
    public var leftBehind: [String]

    /// An item; timestamps and what was left behind are optional.
    public init(
        label: String, attributes: [String: String], secret: SecureBytes,
        contentType: String = "text/plain", created: UInt64? = nil, modified: UInt64? = nil,
        leftBehind: [String] = []
    ) {
        self.label = label
        self.attributes = attributes
        self.secret = secret
        self.contentType = contentType
        self.created = created
        self.modified = modified
        self.leftBehind = leftBehind
    }

    /// Whether `other` is the same item for an import: same label, attributes (as
    /// ``matching(_:)`` has them) and secret (the rule that makes importing a source twice change
    /// nothing the second time). The secrets are compared in constant time.
    public func isSameItem(as other: PortableItem) -> Bool {
        label == other.label && Self.matching(attributes) == Self.matching(other.attributes)
            && contentType == other.contentType && secret.constantTimeEquals(other.secret)
    }

    /// `attributes` as an import matches them: without an `xdg:schema` naming the generic schema.
    /// gnome-keyring serves an item stored without a schema with no `xdg:schema` until it reloads
    /// its keyring file, and with the generic one after (gnome-keyring 42.1, measured: it reloads
    /// when the file changes on disk, at a time nobody chooses), so the two are one item.
    public static func matching(_ attributes: [String: String]) -> [String: String] {
        guard attributes[schemaAttribute] == SecretServiceContract.genericSchema else { return attributes }
        var matched = attributes
        matched[schemaAttribute] = nil
        return matched
    }

    private static let schemaAttribute = "xdg:schema"
}

/// A whole collection (a keyring, a database, a password store) as read from or written to
/// another store's format.
public struct PortableCollection: Sendable {
    /// The collection's name in the source (a keyring's display name, a database's name).
    public var label: String
    /// Its items, in the source's order.
    public var items: [PortableItem]
    /// Seconds since the Unix epoch; nil where the source keeps none.
    public var created: UInt64?
    /// Seconds since the Unix epoch; nil where the source keeps none.
    public var modified: UInt64?
    /// What of the source was not read into an item, and why (the import's plan lists them).
    public var skipped: [PortableSkip]

    /// A collection.
    public init(
        label: String, items: [PortableItem], created: UInt64? = nil, modified: UInt64? = nil,
        skipped: [PortableSkip] = []
    ) {
        self.label = label
        self.items = items
        self.created = created
        self.modified = modified
        self.skipped = skipped
    }
}

/// An entry of a source that a reader passed over (a kind of item Puff does not import, a link
/// it does not follow, a damaged item), said in the import's plan as `skipped`.
public struct PortableSkip: Sendable, Equatable {
    /// The entry's name in the source (a label, a path), where it has one that can be shown.
    public var label: String?
    /// Why, in words shown to the person; never a secret.
    public var reason: String

    /// A skipped entry.
    public init(label: String?, reason: String) {
        self.label = label
        self.reason = reason
    }
}
