// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
public import PuffStore

extension SecretService {
    /// Whether the vault has its passcode (its catalog exists).
    public var isInitialized: Bool { catalog != nil }

    /// Sets the vault's first passcode: creates the `login` collection, unlocked, with aliases
    /// `default` and `login`, under `policy`. An ephemeral vault passes nil (a random key, kept in
    /// memory). On a vault whose `login` was deleted it makes a new `login`, which also becomes
    /// the default when no collection is.
    ///
    /// - Throws: ``ServiceError/alreadyInitialized`` while a `login` exists (or failed to open),
    ///   ``ServiceError/passcodePolicy(_:)``, ``ServiceError/failed(_:)``.
    public func initialize(passcode: SecureBytes?, policy: PasscodePolicy = .standard) async throws(ServiceError) {
        try await initialize(passcode: passcode, policy: policy, announce: true)
    }

    /// ``initialize(passcode:policy:)``, announcing `login` or (while the service starts) not;
    /// `slot` is the type of `login`'s one slot (`.login` when a login password makes it).
    func initialize(
        passcode: SecureBytes?, policy: PasscodePolicy = .standard, announce: Bool, slot: KeySlot.Kind = .passcode
    ) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        if catalog != nil {
            guard collectionStates[.login] == nil, !damaged.contains(where: { $0.name == CollectionID.login.rawValue })
            else { throw .alreadyInitialized }
            let aliases = ["login"] + (readAlias("default") == nil ? ["default"] : [])
            _ = try await makeCollection(
                id: .login, label: "Login", passcode: passcode, policy: policy, flags: [], aliases: aliases,
                announce: announce, slot: slot)
            return
        }
        catalog = Catalog(hiddenKDF: mode.kdf)
        do {
            _ = try await makeCollection(
                id: .login, label: "Login", passcode: passcode, policy: policy, flags: [],
                aliases: ["default", "login"], announce: announce, slot: slot)
        } catch {
            catalog = nil
            throw error
        }
    }

    /// Creates a collection under `passcode`, which must meet `policy`, and announces it (hidden
    /// ones are not announced); `aliases` then name it. `lockedSearch` says whether its items are
    /// found while it is locked (issue 24 item 6); a private or hidden collection is `never`.
    /// `indexStorage` ``VaultHeader/IndexStorage/tpm2`` keeps an `always` collection's index key
    /// sealed by the TPM instead of in the clear (`--locked-search tpm2`, issue 26 item 6).
    ///
    /// - Throws: ``ServiceError/notInitialized``, ``ServiceError/limitExceeded(_:)``,
    ///   ``ServiceError/passcodePolicy(_:)``, ``ServiceError/invalidArgument(_:)`` for a
    ///   private collection asked to be searched while locked, ``ServiceError/failed(_:)``.
    public func createCollection(
        label: String, passcode: SecureBytes?, isPrivate: Bool, isHidden: Bool, policy: PasscodePolicy = .standard,
        aliases: [String] = [], lockedSearch: VaultHeader.LockedSearch? = nil,
        indexStorage: VaultHeader.IndexStorage? = nil
    ) async throws(ServiceError) -> CollectionID {
        if isPrivate || isHidden, let lockedSearch, lockedSearch != .never {
            throw .invalidArgument("a private collection has no blind index: its locked search is never")
        }
        try checkLabel(label)
        // Sealed before the write turn: the TPM answers in milliseconds, but alone.
        let sealedIndex = try await sealIndexKey(
            indexStorage, lockedSearch: isPrivate || isHidden ? .never : lockedSearch ?? .always)
        await beginWrite()
        defer { endWrite() }
        guard catalog != nil else { throw .notInitialized }
        try checkRoomForCollection(hidden: isHidden)
        let id = CollectionID(CollectionIdentifier.make(fromLabel: label) { collectionStates[CollectionID($0)] != nil })
        var flags: VaultHeader.Flags = []
        if isPrivate || isHidden { flags.insert(.private) }
        if isHidden { flags.insert(.hidden) }
        return try await makeCollection(
            id: id, label: label, passcode: passcode, policy: policy, flags: flags, aliases: aliases,
            lockedSearch: lockedSearch ?? .always, sealedIndex: sealedIndex
        ).id
    }

    /// Writes a new collection's header (with `policy`), collection record and (unless hidden)
    /// catalog entry, then adds it unlocked. The caller holds the write turn and has set
    /// ``catalog``.
    ///
    /// - Throws: ``ServiceError/passcodePolicy(_:)`` before anything is derived or written when
    ///   `passcode` does not meet `policy`; ``ServiceError/failed(_:)``.
    func makeCollection(
        id: CollectionID, label: String, passcode: SecureBytes?, policy: PasscodePolicy = .standard,
        flags: VaultHeader.Flags, aliases: [String], announce: Bool = true, creator: ClientID? = nil,
        lockedSearch: VaultHeader.LockedSearch = .always, sealedIndex: SealedIndexKey? = nil,
        slot: KeySlot.Kind = .passcode
    ) async throws(ServiceError) -> CollectionVault {
        if let passcode, !policy.admits(passcode) { throw .passcodePolicy(policy) }
        let hidden = flags.contains(.hidden)
        let typed = KeySlot.Typed(
            kdf: hidden ? catalog!.hiddenKDF : mode.kdf, salt: hidden ? catalog!.hiddenSalt : PasscodeKDF.newSalt())
        let space = SpaceID.random()
        let search = flags.contains(.private) ? .never : lockedSearch
        // Version 3 with one passcode slot (design §2); more are added with `puffctl slot add`.
        var header = VaultHeader(
            flags: flags, policyKind: policy.headerKind, policyMinimumLength: UInt8(clamping: policy.minimumLength),
            space: space, collectionID: hidden ? nil : id.rawValue, lockedSearch: search,
            indexKey: search == .always && sealedIndex == nil ? SecureRandom.bytes(32) : nil)
        let master = MasterKey()
        if let sealedIndex, search == .always {
            header.indexSeal = sealedIndex.seal
            guard let wrap = try? header.wrapIndexKey(sealedIndex.key, master: master) else {
                throw .failed("the index key could not be wrapped")
            }
            header.indexWrap = wrap
        }
        let passcodeKey = try await passcodeKey(passcode, typed)
        do {
            // A login slot when a login password makes `login` (SecretService+Login.swift).
            let kind: KeySlot.Kind = slot == .login ? .login : .passcode
            try header.addSlot(
                label: kind.description, parameters: kind == .login ? .login(typed) : .passcode(typed), master: master,
                kek: SlotKeys.kek(from: passcodeKey, kind: kind.rawValue))
        } catch {
            throw .failed("the collection key could not be wrapped")
        }
        let time = now()
        let fields = CollectionFields(
            id: id.rawValue, label: label, created: time, modified: time, nextItemNumber: 1,
            aliases: hidden ? aliases : [])
        let opened: OpenedCollection
        do {
            opened = try VaultOpening.open(
                JournalReplay(records: [], cut: nil, size: 0, heads: []), header: header, master: master, id: id,
                file: space.hex, fields: fields)
        } catch {
            throw .failed(error.message)
        }
        let vault = CollectionVault(id: id, space: space, header: header, opened: opened)
        if case .ephemeral = mode { vault.escrow = master }
        vault.headerKey = master.subkey(.header)
        vault.creator = creator
        var aliases = aliases
        // The first collection made while none is the default becomes it.
        if !hidden, readAlias("default") == nil, !aliases.contains("default") { aliases.append("default") }
        var newCatalog = catalog!
        if !hidden {
            newCatalog.collections.append(Catalog.Entry(space: space, id: id.rawValue))
            for alias in aliases { newCatalog.aliases[alias] = id.rawValue }
        }
        let draft = collectionRecord(fields, in: vault)
        let first = VaultRecord(
            kind: draft.kind, number: draft.number, tags: draft.tags, plaintext: draft.plaintext, space: space,
            sealer: vault.sealer!, link: .first(1))
        let tip = JournalChain.Tip.first(first, time: fields.modified)
        do {
            try await store.replaceHeader(header.encoded(), of: space)
            try await store.append(
                first.encoded(), to: space, head: tip.head(space: space, sealer: vault.sealer!).encoded())
            try await store.replaceCatalog(newCatalog.encoded())
        } catch {
            try? await store.remove(space)
            logger.error("Vault write failed", metadata: ["collection.id": "\(id)", "error": "\(error)"])
            throw unsaved(error, "the change could not be saved")
        }
        catalog = newCatalog
        vault.tip = tip
        vault.noteAppended([first])
        collectionStates[id] = vault
        keepKey(master, of: vault)
        startAutoLock(vault)
        collectionOrder.insert(id, at: collectionOrder.firstIndex(of: .session) ?? collectionOrder.endIndex)
        for alias in aliases { self.aliases[alias] = id }
        logger.info("Collection created", metadata: ["collection.id": "\(hidden ? "(hidden)" : id.rawValue)"])
        if !hidden, announce { emit(.collectionCreated(id)) }
        return vault
    }

    /// The collection record holding `fields`, to be sealed by ``persist(_:in:obsoleting:)``.
    func collectionRecord(_ fields: CollectionFields, in vault: CollectionVault) -> RecordDraft {
        RecordDraft(kind: .collection, number: 0, tags: [], plaintext: fields.plaintext())
    }

    /// The key `passcode` derives under `typed`'s salt and cost (``typedKey(_:_:)``); a random key
    /// when there is no passcode (ephemeral vault).
    func passcodeKey(_ passcode: SecureBytes?, _ typed: KeySlot.Typed) async throws(ServiceError) -> SecureBytes {
        guard let passcode else { return MasterKey().subkey(.records) }
        return try await typedKey(passcode, typed)
    }

    /// For index storage ``VaultHeader/IndexStorage/tpm2``: a fresh index key and the TPM's seal of
    /// it; nil for the other storages.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` when `lockedSearch` is not `always`;
    ///   ``ServiceError/hardware(_:)`` when there is no TPM or it refuses.
    func sealIndexKey(_ storage: VaultHeader.IndexStorage?, lockedSearch: VaultHeader.LockedSearch)
        async throws(ServiceError) -> SealedIndexKey?
    {
        guard storage == .tpm2 else { return nil }
        guard lockedSearch == .always else {
            throw .invalidArgument("only an always-searchable collection keeps its index key sealed by the TPM")
        }
        // The text says what needed the TPM: no tpm2 slot is involved.
        let needs = "locked search tpm2 seals the index key with this machine's TPM"
        guard let tpm else { throw .hardware(.unavailable("puffd was started without a TPM (\(needs))")) }
        let key = SecureRandom.secureBytes(32)
        do throws(HardwareError) {
            return SealedIndexKey(
                key: key, seal: KeySlot.TPM2(pcrMask: 0, blob: try await tpm.seal(key, pcrMask: 0, device: nil)))
        } catch .unavailable(let device) {
            throw .hardware(.unavailable("\(device) (\(needs))"))
        } catch {
            throw .hardware(error)
        }
    }
}

/// An index key for index storage 2 and the TPM's seal of it.
struct SealedIndexKey {
    var key: SecureBytes
    var seal: KeySlot.TPM2
}
