// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto

extension SecretService {
    /// Unlocks, at start, every locked collection whose key the ``UnlockedKeyKeeper`` still has;
    /// a key that does not open its collection is forgotten.
    func unlockFromKeeper() async {
        guard let keyKeeper, case .persistent = mode else { return }
        for id in collectionOrder {
            guard let vault = collectionStates[id], vault.isLocked, !vault.isHidden, let space = vault.space,
                let key = keyKeeper.key(for: space)
            else { continue }
            do {
                try await open(vault, master: key)
                logger.info("Unlocked with the key kept in the kernel keyring", metadata: ["collection.id": "\(id)"])
            } catch {
                keyKeeper.forget(space)
                logger.warning("A kept key did not open its collection", metadata: ["collection.id": "\(id)"])
            }
        }
    }

    /// Hands an unlocked collection's key to the keeper (visible and private collections of a
    /// persistent vault only).
    func keepKey(_ master: MasterKey, of vault: CollectionVault) {
        guard let keyKeeper, case .persistent = mode, !vault.isHidden, let space = vault.space else { return }
        keyKeeper.keep(master, for: space)
    }

    /// Makes the keeper forget a collection's key: it was locked or deleted.
    func forgetKey(of vault: CollectionVault) {
        guard let keyKeeper, let space = vault.space else { return }
        keyKeeper.forget(space)
    }
}
