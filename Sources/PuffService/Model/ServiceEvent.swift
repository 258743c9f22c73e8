// SPDX-License-Identifier: Apache-2.0

/// Something the bus must announce, carrying every value its signals need so it never has to call
/// back into the service. Delivered synchronously, in secret-service.md §7 order, before the method
/// that caused it returns.
public enum ServiceEvent: Sendable, Equatable {
    /// A collection appeared; `all` is the new `Collections` property.
    case collectionCreated(CollectionID, all: [CollectionID])
    /// A collection went away; `all` is the new `Collections` property.
    case collectionDeleted(CollectionID, all: [CollectionID])
    /// Collection properties changed; the values are the new ones.
    case collectionChanged(CollectionID, [CollectionProperty])
    /// An item appeared; `collectionItems` is its collection's new `Items` property.
    case itemCreated(ItemID, collectionItems: [ItemID])
    /// An item went away; `collectionItems` is its collection's new `Items` property.
    case itemDeleted(ItemID, collectionItems: [ItemID])
    /// Item properties changed; the values are the new ones.
    case itemChanged(ItemID, [ItemProperty])
    /// A prompt finished; send `Completed` to `owner` and forget the prompt path.
    case promptCompleted(PromptID, owner: ClientID, dismissed: Bool, result: PromptResult)
}

/// A changed collection property with its new value.
public enum CollectionProperty: Sendable, Equatable {
    /// `Label`.
    case label(String)
    /// `Locked`.
    case locked(Bool)
    /// `Modified`.
    case modified(UInt64)
    /// `Items`.
    case items([ItemID])
}

/// A changed item property with its new value.
public enum ItemProperty: Sendable, Equatable {
    /// `Label`.
    case label(String)
    /// `Locked`.
    case locked(Bool)
    /// `Modified`.
    case modified(UInt64)
    /// `Attributes`.
    case attributes(Attributes)
    /// `Type`.
    case type(String)
}

/// The typed `result` of `Prompt.Completed` (secret-service.md §6.11: typed even when dismissed).
public enum PromptResult: Sendable, Equatable {
    /// `ao`: the caller's spellings that were unlocked or locked; empty when dismissed.
    case paths([String])
    /// `o`: the created collection; nil (`/`) when dismissed.
    case collection(CollectionID?)
    /// `o`: the created item; nil (`/`) when dismissed.
    case item(ItemID?)
    /// No meaningful value (`s ""`).
    case none
}
