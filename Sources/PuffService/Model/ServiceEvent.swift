// SPDX-License-Identifier: Apache-2.0

/// Something the bus must announce. Delivered synchronously, in secret-service.md §7 order, before
/// the method that caused it returns.
///
/// No event carries a whole list: the service's `Collections` and a collection's `Items` change
/// with every creation and deletion, and sending them along would make each write cost as much as
/// the list is long. The bus reads them once per short window instead (architecture.md Part A item 9).
public enum ServiceEvent: Sendable, Equatable {
    /// A collection appeared; the `Collections` property changed.
    case collectionCreated(CollectionID)
    /// A collection went away; the `Collections` property changed.
    case collectionDeleted(CollectionID)
    /// Collection properties changed; the values are the new ones.
    case collectionChanged(CollectionID, [CollectionProperty])
    /// An item appeared; its collection's `Items` and `Modified` changed.
    case itemCreated(ItemID)
    /// An item went away; its collection's `Items` and `Modified` changed.
    case itemDeleted(ItemID)
    /// Item properties changed; the values are the new ones.
    case itemChanged(ItemID, [ItemProperty])
    /// A collection was locked or unlocked (or locked again: gnome-keyring announces that too);
    /// its items' `Locked` follow it. One event however many items the collection holds: the bus
    /// decides which connections hear about which items (secret-service.md §7).
    case lockChanged(CollectionID, locked: Bool, view: LockView)
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
}

/// A changed item property with its new value.
public enum ItemProperty: Sendable, Equatable {
    /// `Label`.
    case label(String)
    /// `Locked`.
    case locked(Bool)
    /// `Modified`.
    case modified(UInt64)
    /// `Created` (it changes only with what a locked collection shows: docs/collections.md).
    case created(UInt64)
    /// `Attributes`.
    case attributes(Attributes)
    /// `Type`.
    case type(String)
}

/// The typed `result` of `Prompt.Completed` (secret-service.md §6.11: typed even when dismissed).
public enum PromptResult: Sendable, Equatable {
    /// `ao`: what was unlocked, in the order the caller named it (the bus layer echoes the
    /// caller's spellings); empty when dismissed.
    case objects([ObjectReference])
    /// `o`: the created collection; nil (`/`) when dismissed.
    case collection(CollectionID?)
    /// `o`: the created item; nil (`/`) when dismissed.
    case item(ItemID?)
    /// No meaningful value (`s ""`).
    case none
}
