// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// Hidden collections (architecture.md Part A item 3): not listed until their passcode opens
/// them, one passcode slot each under the salt and cost every hidden collection shares.
extension SecretService {
    /// Derives the passcode's key once under the hidden salt and tries it on every closed hidden
    /// collection, one such attempt at a time.
    func unlockHidden(passcode: SecureBytes) async throws(ServiceError) -> CollectionID {
        let since = openingHidden.locks  // a Lock of everything from now on wins
        return try await passcodeAttempt("") { () throws(ServiceError) in
            try await tryHidden(passcode: passcode, since: since)
        }
    }

    /// Makes a Lock of everything reach the hidden collections being opened: their unlocks are
    /// refused (unlisted yet, they announce nothing).
    func stopHiddenUnlocks() {
        openingHidden.locks += 1
        for vault in openingHidden.vaults { finishLocking(vault, vault.lock(forGood: true)) }
    }

    private func tryHidden(passcode: SecureBytes, since: Int) async throws(ServiceError) -> CollectionID {
        guard let catalog else { throw .notInitialized }
        let shared = KeySlot.Typed(kdf: catalog.hiddenKDF, salt: catalog.hiddenSalt)
        let key = try await typedKey(passcode, shared)
        var opened: CollectionID?
        for (space, header) in hiddenHeaders {
            guard let master = Self.hiddenMaster(header, key: key, shared: shared) else { continue }
            let vault = try await hiddenVault(space: space, header: header, master: master)
            guard openingHidden.locks == since else { throw lockWon(vault) }
            openingHidden.vaults.append(vault)
            defer { openingHidden.vaults.removeAll { $0 === vault } }
            try await open(vault, master: master)
            opened = opened ?? vault.id
        }
        // Asking again for one already open is no wrong passcode (and costs no delay).
        for vault in collectionStates.values where vault.isHidden {
            guard let header = vault.header, Self.hiddenMaster(header, key: key, shared: shared) != nil else {
                continue
            }
            opened = opened ?? vault.id
        }
        guard let opened else { throw .wrongPasscode(nil) }
        return opened
    }

    /// The master of a hidden collection whose one passcode slot is under the catalog's hidden
    /// salt and cost and opens with `key`; nil otherwise. A hidden header with any other slot is
    /// never tried: it would open without the passcode (design §3).
    private static func hiddenMaster(_ header: VaultHeader, key: SecureBytes, shared: KeySlot.Typed) -> MasterKey? {
        guard header.slots.count == 1, let slot = header.slots.first, slot.kind == .passcode,
            slot.parameters.typed == shared,
            let master = try? header.unwrapMaster(slot, kek: kek(for: slot, typedKey: key, in: header)),
            (try? header.verifyMAC(with: master)) != nil
        else { return nil }
        return master
    }

    /// A closed hidden collection's vault, its id read from its sealed collection record.
    private func hiddenVault(space: SpaceID, header: VaultHeader, master: MasterKey) async throws(ServiceError)
        -> CollectionVault
    {
        let records: [JournalReplay.Record]
        let format: UInt8
        do {
            let journal = try await store.replay(space)
            records = journal.records
            format = journal.version
        } catch {
            throw .damaged("\(error)")
        }
        guard let sealer = try? SecretSealer(key: master.subkey(.records)),
            let first = records.first(where: {
                (try? VaultRecord(decoding: $0.bytes, format: format).kind) == .collection
            }),
            let record = try? VaultRecord(decoding: first.bytes, format: format),
            let plaintext = try? record.open(space: space, sealer: sealer),
            let fields = try? CollectionFields(parsing: plaintext)
        else { throw .damaged("a hidden collection's records do not open") }
        var id = CollectionID(fields.id)
        if collectionStates[id] != nil {
            // Its name was taken while it was hidden: show it under a free one for this session.
            id = CollectionID(
                CollectionIdentifier.make(fromLabel: fields.id) { collectionStates[CollectionID($0)] != nil })
        }
        let scanned = ScannedCollection(index: AttributeIndex(), hasher: KeyedHash())
        return CollectionVault(id: id, space: space, header: header, scanned: scanned)
    }
}
