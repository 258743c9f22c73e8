// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffStore

/// Keeps the master keys of unlocked collections outside puffd, so that a puffd started after a
/// crash, an upgrade or an exit finds them unlocked (opt-in: the kernel keyring, with a time
/// limit). Locking a collection, by hand or automatically, forgets its key. Hidden collections are
/// never kept: a restart brings them back hidden.
public protocol UnlockedKeyKeeper: Sendable {
    /// Keeps the key of the collection stored in `space`.
    func keep(_ key: MasterKey, for space: SpaceID)
    /// The key kept for `space`, if any is left.
    func key(for space: SpaceID) -> MasterKey?
    /// Forgets the key kept for `space`.
    func forget(_ space: SpaceID)
}
