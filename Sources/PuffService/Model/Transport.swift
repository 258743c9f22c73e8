// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A secret as it crosses the bus (`(oayays)`): ciphertext in a DH session, plain bytes otherwise.
public struct TransportSecret: Sendable {
    /// The session that encoded, or must decode, `value`.
    public var session: SessionID
    /// The IV in a DH session; empty in a plain session.
    public var parameters: [UInt8]
    /// Ciphertext or plain bytes.
    public var value: SecureBytes
    /// The MIME type of the plaintext, for example `"text/plain"`.
    public var contentType: String

    /// Creates a transport secret.
    public init(session: SessionID, parameters: [UInt8], value: SecureBytes, contentType: String) {
        self.session = session
        self.parameters = parameters
        self.value = value
        self.contentType = contentType
    }
}

/// The `input` variant of `OpenSession`, reduced to what the service needs.
public enum SessionInput: Sendable {
    /// A `s` value (what `plain` clients send).
    case string(String)
    /// An `ay` value (the client's DH public key).
    case bytes([UInt8])
    /// Any other type, named by its D-Bus signature.
    case other(signature: String)
}

/// The `output` variant of `OpenSession`.
public enum SessionOutput: Sendable, Equatable {
    /// A `s` value (`""` for `plain`).
    case string(String)
    /// An `ay` value (the service's DH public key).
    case bytes([UInt8])
}

/// What a path a client passed to `Unlock` or `Lock` names, resolved by the bus layer; the path
/// as the caller spelled it stays there, to be echoed back (secret-service.md §6.5).
public enum ObjectReference: Sendable, Hashable {
    /// A collection, reached by its own path or through an alias.
    case collection(CollectionID)
    /// An item.
    case item(ItemID)
}

/// What ``SecretService/collectionInfo(_:)`` reports.
public struct CollectionInfo: Sendable, Equatable {
    /// The label.
    public var label: String
    /// Whether the collection is locked.
    public var isLocked: Bool
    /// Creation time, seconds since the epoch.
    public var created: UInt64
    /// Last modification time, seconds since the epoch.
    public var modified: UInt64
    /// How many items the collection holds (``SecretService/itemIDs(in:)`` lists them).
    public var itemCount: Int

    /// Creates collection properties.
    public init(label: String, isLocked: Bool, created: UInt64, modified: UInt64, itemCount: Int) {
        self.label = label
        self.isLocked = isLocked
        self.created = created
        self.modified = modified
        self.itemCount = itemCount
    }
}

/// What ``SecretService/itemInfo(_:)`` reports (readable while locked, secret-service.md §8).
public struct ItemInfo: Sendable, Equatable {
    /// The label.
    public var label: String
    /// The attributes, verbatim.
    public var attributes: Attributes
    /// The `xdg:schema` attribute when present, else the stored type (secret-service.md §9.2).
    public var type: String
    /// Whether the item's collection is locked.
    public var isLocked: Bool
    /// Creation time, seconds since the epoch.
    public var created: UInt64
    /// Last modification time, seconds since the epoch.
    public var modified: UInt64

    /// Creates item properties.
    public init(label: String, attributes: Attributes, type: String, isLocked: Bool, created: UInt64, modified: UInt64)
    {
        self.label = label
        self.attributes = attributes
        self.type = type
        self.isLocked = isLocked
        self.created = created
        self.modified = modified
    }
}
