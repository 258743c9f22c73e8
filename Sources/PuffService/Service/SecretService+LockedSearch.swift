// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
import PuffProtocol
public import PuffStore

/// Whether, and from when, a locked collection's items are found by search (the header's mode).
public typealias LockedSearch = VaultHeader.LockedSearch

extension LockedSearch {
    /// The mode named `name` (as ``description`` spells it: `always`, `after-unlock`, `never`).
    public init?(name: String) {
        guard let mode = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = mode
    }

    /// The mode and index storage a user-facing name chooses: `always` (the key in the clear),
    /// `tpm2` (`always`, the key sealed by this machine's TPM, issue 26 item 6), `after-unlock`,
    /// `never`; nil for another name.
    public static func named(_ name: String) -> (mode: LockedSearch, storage: VaultHeader.IndexStorage?)? {
        if name == LockedSearchName.tpm2.rawValue { return (.always, .tpm2) }
        return Self(name: name).map { ($0, nil) }
    }

    /// How much a thief with the files learns: `always` most (the files test guesses of attribute
    /// values), then `always` with the key sealed by the TPM (nothing to guess with without this
    /// machine, but search works before any unlock on it), `after-unlock` (the index in memory
    /// after the first unlock), `never` least.
    static func exposure(_ mode: LockedSearch, _ storage: VaultHeader.IndexStorage?) -> Int {
        switch mode {
        case .always: storage == .tpm2 ? 2 : 3
        case .afterUnlock: 1
        case .never: 0
        }
    }
}

extension SecretService {
    /// Changes whether a collection's items are found while it is locked (issue 24 item 6).
    ///
    /// The mode is covered by the header MAC (version 3; any slot's credential proves the change)
    /// or, in a header from before slots, bound into the wrap of the master key, which is then
    /// wrapped again under the same passcode and stays version 2. `credential` is needed whichever
    /// way the change goes, and is the person's consent to a weaker mode. A locked collection is
    /// unlocked by it first. Going to `always`
    /// puts a fresh index key in the header and tags every item record under it; leaving
    /// `always` destroys the key and writes the records without tags (the journal is sealed
    /// again, compacted); between `after-unlock` and `never` only the header changes. The order
    /// of the two writes leaves, after a crash between them, a journal without tags: never
    /// weaker than either mode (running the change again finishes it). Every change, done or
    /// refused, is audited in the collection.
    ///
    /// With `indexStorage` ``VaultHeader/IndexStorage/tpm2`` (only for `always`; `--locked-search
    /// tpm2`) the fresh index key is sealed by the TPM and wrapped under the master key, never in
    /// the clear: search works before the unlock on this machine only (a header from before slots
    /// becomes version 3 for it).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/invalidArgument(_:)`` for a
    ///   private collection, ``ServiceError/wrongPasscode``, ``ServiceError/damaged(_:)``,
    ///   ``ServiceError/hardware(_:)``, ``ServiceError/failed(_:)``; ``ServiceError/notConfirmed(_:)``
    ///   when a `Lock` came while the credential opened a locked collection.
    public func setLockedSearch(
        _ mode: VaultHeader.LockedSearch, of id: CollectionID, with credential: SlotCredential, caller: Caller,
        indexStorage: VaultHeader.IndexStorage? = nil
    ) async throws(ServiceError) {
        guard let vault = collectionStates[id], let old = vault.header, vault.space != nil else {
            throw .noSuchObject
        }
        guard !vault.isPrivate else {
            throw .invalidArgument("a private collection has no blind index: its locked search is always never")
        }
        // To or from `always` the journal is written again, and a fleet collection's is the
        // other machines' too: refused before its header (which would reach them) changes.
        if mode == .always || old.lockedSearch == .always,
            let refusal = sharedRefusal(vault, "changing locked search to or from always")
        {
            throw refusal
        }
        let change = "\(Self.described(old.lockedSearch, old.indexStorage)) → \(Self.described(mode, indexStorage))"
        let opened: OpenedSlot
        let sealed: SealedIndexKey?
        let since = vault.lockCount  // a Lock while the credential is derived wins
        do throws(ServiceError) {
            opened = try await openedSlot(of: id, with: credential)
            sealed = try await sealIndexKey(indexStorage, lockedSearch: mode)
        } catch {
            audit(
                .lockedSearch, of: ItemID(collection: id, number: 0), label: change, caller: caller,
                result: Self.auditResult(of: error))
            throw error
        }
        let master = opened.master
        if vault.isLocked { try await open(vault, master: master, since: since) }
        await beginWrite()
        defer { endWrite() }
        guard collectionStates[id] === vault, !vault.isLocked, vault.header != nil else { throw .noSuchObject }
        // Another machine's slot change comes first: the mode is set in the newest header.
        await takeSharedHeader(of: vault)
        guard let current = vault.header else { throw .noSuchObject }
        // A passcode change meanwhile re-keyed it: `master` is the old key.
        guard current.space == old.space else { throw .wrongPasscode(nil) }
        // Running `always` again re-tags the journal: it finishes a change a crash interrupted.
        guard mode != current.lockedSearch || mode == .always else { return }
        try await audited(.lockedSearch, of: ItemID(collection: id, number: 0), label: change, caller: caller) {
            () throws(ServiceError) in
            try await rewriteForLockedSearch(mode, vault: vault, opened: opened, sealed: sealed)
        }
        let weaker =
            LockedSearch.exposure(mode, indexStorage)
            > LockedSearch.exposure(current.lockedSearch, current.indexStorage)
        logger.notice(
            "Locked search changed",
            metadata: [
                "collection.id": "\(id)", "change": "\(change)", "client.name": "\(caller.client.rawValue)",
                "weaker": "\(weaker)",
            ])
    }

    /// ``setLockedSearch(_:of:with:caller:indexStorage:)`` with a typed passcode.
    public func setLockedSearch(
        _ mode: VaultHeader.LockedSearch, of id: CollectionID, passcode: SecureBytes, caller: Caller,
        indexStorage: VaultHeader.IndexStorage? = nil
    ) async throws(ServiceError) {
        try await setLockedSearch(mode, of: id, with: .typed(passcode), caller: caller, indexStorage: indexStorage)
    }

    /// Writes the header of `mode` and, when the tags change, the journal, in the order that
    /// never leaves tags beside a key a thief can read; then re-indexes memory. The caller holds
    /// the write turn; `vault` is unlocked.
    private func rewriteForLockedSearch(
        _ mode: VaultHeader.LockedSearch, vault: CollectionVault, opened: OpenedSlot, sealed: SealedIndexKey?
    ) async throws(ServiceError) {
        guard var header = vault.header else { throw .noSuchObject }
        let master = opened.master
        let wasTagged = header.lockedSearch == .always
        // Index storage 2 lives in version 3 headers only.
        if sealed != nil { header = try Self.slotted(header, opened) }
        header.lockedSearch = mode
        let indexKey: SecureBytes?
        if let sealed {
            header.indexKey = nil
            header.indexSeal = sealed.seal
            guard let wrap = try? header.wrapIndexKey(sealed.key, master: master) else {
                throw .failed("the index key could not be wrapped")
            }
            header.indexWrap = wrap
            indexKey = sealed.key
        } else {
            // A key sealed by the TPM is not put in the clear: a fresh one is.
            header.indexKey = mode == .always ? (header.indexKey ?? SecureRandom.bytes(32)) : nil
            header.indexSeal = nil
            header.indexWrap = nil
            indexKey = header.indexKey.map { SecureBytes(unwipedCopyOf: $0) }
        }
        if header.isLegacy {
            // The mode is in the wrap's associated data: the one slot is wrapped again under its
            // passcode, and the header stays one an older puffd reads (version 2, design §2).
            guard let typedKey = opened.typedKey, var slot = header.slots.first else {
                throw .failed("the collection key could not be wrapped")
            }
            header.version = 2
            guard let wrapped = try? header.wrapMaster(master, for: slot, kek: typedKey) else {
                throw .failed("the collection key could not be wrapped")
            }
            slot.wrappedMaster = wrapped
            header.slots = [slot]
        } else {
            header.sealMAC(with: master)
        }
        let hasher = indexKey.flatMap { try? KeyedHash(key: $0) }
        guard (hasher != nil) == (mode == .always) else { throw .failed("the index key could not be made") }
        if mode == .always {
            // The key first: tags never sit on disk under a key that is nowhere.
            try await saveHeader(header, of: vault)
            _ = try await rechain(vault, tagging: .remade(hasher))
        } else {
            // The tags go first: the key stays on disk only while no tags it opens are left.
            if wasTagged { _ = try await rechain(vault, tagging: .remade(nil)) }
            try await saveHeader(header, of: vault)
        }
        vault.reindex(under: hasher ?? (try? KeyedHash(key: master.subkey(.blindIndex))) ?? KeyedHash())
    }

    /// Replaces the collection's header file and its copy in memory.
    private func saveHeader(_ header: VaultHeader, of vault: CollectionVault) async throws(ServiceError) {
        guard let space = vault.space else { throw .noSuchObject }
        do {
            try await store.replaceHeader(header.encoded(), of: space)
        } catch {
            logger.error("Writing a header failed", metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            throw .failed("the new locked search could not be saved: \(error)")
        }
        vault.header = header
    }

    /// A mode as the audit log and `status` name it: `always (tpm2)` for index storage 2.
    static func described(_ mode: VaultHeader.LockedSearch, _ storage: VaultHeader.IndexStorage?) -> String {
        mode == .always && storage == .tpm2 ? "always (tpm2)" : mode.description
    }
}
