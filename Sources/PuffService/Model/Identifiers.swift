// SPDX-License-Identifier: Apache-2.0

/// An item's lookup attributes: name → value, compared byte for byte.
public typealias Attributes = [String: String]

/// Identifies a collection by its identifier (secret-service.md §1.3), for example `"login"` or `"My_Coll"`.
///
/// The identifier is case-sensitive and not yet path-encoded; the bus layer encodes it.
public struct CollectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw identifier.
    public let rawValue: String
    /// Wraps an identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw identifier.
    public var description: String { rawValue }

    /// The persistent collection created at first start (gnome-keyring parity, secret-service.md §11).
    public static let login = CollectionID("login")
    /// The in-memory collection that is never persisted or locked.
    public static let session = CollectionID("session")
}

/// Identifies an item: its collection and its number there (never reused).
public struct ItemID: Hashable, Sendable, CustomStringConvertible {
    /// The collection holding the item.
    public let collection: CollectionID
    /// The item's number inside its collection, starting at 1.
    public let number: UInt64
    /// Creates an item identifier.
    public init(collection: CollectionID, number: UInt64) {
        self.collection = collection
        self.number = number
    }
    /// `collection/number`, for logs.
    public var description: String { "\(collection.rawValue)/\(number)" }
}

/// Identifies a transfer session: `"s1"`, `"s2"`, … from one service-wide counter.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw identifier, a valid D-Bus path element.
    public let rawValue: String
    /// Wraps an identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw identifier.
    public var description: String { rawValue }
}

/// Identifies a prompt: `"p1"`, `"p2"`, … from one service-wide counter.
public struct PromptID: Hashable, Sendable, CustomStringConvertible {
    /// The raw identifier, a valid D-Bus path element (`[A-Za-z0-9_]`).
    public let rawValue: String
    /// Wraps an identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw identifier.
    public var description: String { rawValue }
}

/// Identifies a caller by its unique bus name, for example `":1.42"`.
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    /// The unique bus name.
    public let rawValue: String
    /// Wraps a unique bus name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The unique bus name.
    public var description: String { rawValue }
}
