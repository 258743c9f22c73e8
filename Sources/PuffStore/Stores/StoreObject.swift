// SPDX-License-Identifier: Apache-2.0

/// One thing a ``RecordStore`` keeps, as the service refers to it; the store says what it is
/// called (``RecordStore/name(of:)``): a file's path for the file store, a bare name in memory, a
/// key for a remote store. The service never composes a store's names itself.
public enum StoreObject: Sendable, Hashable {
    /// A space's header.
    case header(SpaceID)
    /// A space's journal.
    case journal(SpaceID)
    /// A journal a rewrite kept aside under `suffix` (``RecordStore/rewrite(_:records:version:keepingOldAs:)``).
    case keptJournal(SpaceID, suffix: String)
    /// A re-key's note that the space replaces another (``RecordStore/replaceSpace(_:with:header:records:head:)``).
    case replacementNote(SpaceID)
    /// A space's index snapshot.
    case indexSnapshot(SpaceID)
    /// The catalog of collections.
    case catalog
    /// The wrong-passcode record.
    case passcodeAttempts

    /// The name within the vault, as the file store spells it in its folder: `<hex>.journal`,
    /// `<hex>.journal<suffix>`, `catalog`, …
    public var localName: String {
        switch self {
        case .header(let space): "\(space.hex).header"
        case .journal(let space): "\(space.hex).journal"
        case .keptJournal(let space, let suffix): "\(space.hex).journal\(suffix)"
        case .replacementNote(let space): "\(space.hex).replaces"
        case .indexSnapshot(let space): "\(space.hex).index"
        case .catalog: "catalog"
        case .passcodeAttempts: "attempts"
        }
    }
}

/// Where a stored object does not read as it should, in the store's own terms: which object (by
/// the store's name for it), where in it, and why. A journal read past a bad frame reports each
/// as one; the service shows them as they are and never builds a file name of its own.
public struct StoreDamage: Sendable, Equatable, CustomStringConvertible {
    /// The store's name of the damaged object (``RecordStore/name(of:)``).
    public var name: String
    /// The byte offset of the damage in it.
    public var offset: UInt64
    /// Why it does not read.
    public var reason: String

    /// Damage at `offset` of the object the store calls `name`.
    public init(name: String, offset: UInt64, reason: String) {
        self.name = name
        self.offset = offset
        self.reason = reason
    }

    /// `NAME is damaged at offset N: REASON`, as ``StoreError/damaged(file:offset:reason:)`` says it.
    public var description: String { "\(name) is damaged at offset \(offset): \(reason)" }
}

extension StoreError {
    /// The damage this error reports, if it reports damage.
    public var damage: StoreDamage? {
        guard case .damaged(let file, let offset, let reason) = self else { return nil }
        return StoreDamage(name: file, offset: offset, reason: reason)
    }

    /// The error that reports `damage`.
    public static func damaged(_ damage: StoreDamage) -> StoreError {
        .damaged(file: damage.name, offset: damage.offset, reason: damage.reason)
    }
}
