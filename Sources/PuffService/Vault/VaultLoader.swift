// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// Reads a vault at start-up: the catalog, every header, and each visible collection's journal.
enum VaultLoader {
    struct Loaded {
        var catalog: Catalog?
        var collections: [CollectionID: CollectionVault] = [:]
        var order: [CollectionID] = []
        var hidden: [SpaceID: VaultHeader] = [:]
        var damaged: [(name: String, reason: String)] = []
        /// What is wrong with the vault beside its collections: a damaged catalog, files that are
        /// not regular files. Each names the file and why.
        var problems: [String] = []
        /// Spaces an interrupted re-key left behind and this start removed: any key kept for
        /// them outside puffd is revoked.
        var retired: [SpaceID] = []
    }

    /// Loads what can be loaded; a collection that fails is listed in `damaged`, never fatal.
    ///
    /// A damaged catalog is logged and left on disk, and a missing one while collection files
    /// exist is logged: the collections are then found from their headers (see
    /// ``rebuiltCatalog(_:)``), and the next change of the catalog writes it. So `init` is never
    /// asked for, nor can make a second `login`, while a collection's files are there.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the store cannot be listed.
    /// `tpm` unseals the index key of collections whose locked search keeps it sealed by the TPM
    /// (index storage 2); without it, or when it refuses, they are searched only once unlocked.
    static func load(store: any RecordStore, logger: Logger, tpm: (any TPMSealing)? = nil) async throws(ServiceError)
        -> Loaded
    {
        var loaded = Loaded()
        var spaces: [SpaceID]
        do {
            spaces = try await store.spaces()
        } catch {
            logger.critical("The vault's folder cannot be listed", metadata: ["error": "\(error)"])
            throw .failed("the vault cannot be read: \(error)")
        }
        var catalogLost = false
        let catalogFile = store.name(of: .catalog)
        do {
            if let bytes = try await store.catalog() {
                loaded.catalog = try Catalog(decoding: bytes)
            } else if !spaces.isEmpty {
                catalogLost = true
                logger.warning(
                    "The vault's catalog is missing: collections are found from their headers; aliases other than default and login are lost",
                    metadata: ["file": "\(catalogFile)"])
            }
        } catch {
            catalogLost = true
            let named = "\(error)".contains(catalogFile) ? "\(error)" : "\(catalogFile) is damaged: \(error)"
            loaded.problems.append("\(named) (the collections were found from their headers)")
            logger.error(
                "The vault's catalog is damaged: collections are found from their headers; aliases other than default and login are lost",
                metadata: ["file": "\(catalogFile)", "error": "\(error)"])
        }
        await settleReplacements(store: store, spaces: &spaces, into: &loaded, logger: logger)
        let listed = Dictionary(
            (loaded.catalog?.collections ?? []).map { ($0.space, $0.id) }, uniquingKeysWith: { first, _ in first })
        // Catalog order first, then visible collections the catalog lost (recovered, logged).
        let ordered = (loaded.catalog?.collections.map(\.space) ?? []) + spaces.filter { listed[$0] == nil }
        for space in ordered where spaces.contains(space) {
            await loadSpace(
                space, name: listed[space] ?? space.hex, store: store, into: &loaded, logger: logger, tpm: tpm)
        }
        if catalogLost, !spaces.isEmpty { loaded.catalog = rebuiltCatalog(loaded) }
        for refused in await store.refusedFiles() {
            guard case .damaged(let file, _, _) = refused,
                !loaded.damaged.contains(where: { $0.reason.contains(file) }),
                !loaded.problems.contains(where: { $0.contains(file) })
            else { continue }
            logger.error("A vault file is not a regular file: refused", metadata: ["reason": "\(refused)"])
            loaded.problems.append("\(refused)")
        }
        return loaded
    }

    /// A catalog made from the headers: the visible collections in the order found, `default` on
    /// `login` (or the first collection), and the hidden collections' shared KDF salt taken from
    /// one of their headers, so they still open.
    static func rebuiltCatalog(_ loaded: Loaded) -> Catalog {
        let someHidden = loaded.hidden.values.first
        let anyHeader = someHidden ?? loaded.collections.values.compactMap(\.header).first
        let anyTyped = anyHeader?.slots.lazy.compactMap(\.parameters.typed).first
        var catalog = Catalog(hiddenKDF: anyTyped?.kdf ?? .moderate)
        // A hidden header's one slot is its passcode, under the salt every hidden one shares.
        if let hiddenTyped = someHidden?.slots.first?.parameters.typed { catalog.hiddenSalt = hiddenTyped.salt }
        catalog.collections = loaded.order.compactMap { id in
            loaded.collections[id]?.space.map { Catalog.Entry(space: $0, id: id.rawValue) }
        }
        if loaded.order.contains(.login) { catalog.aliases["login"] = CollectionID.login.rawValue }
        if let first = loaded.order.first {
            catalog.aliases["default"] = (loaded.order.contains(.login) ? CollectionID.login : first).rawValue
        }
        return catalog
    }

    /// Loads one space; `name` is how `status` lists it if it fails (its catalog id when known).
    static func loadSpace(
        _ space: SpaceID, name: String, store: any RecordStore, into loaded: inout Loaded, logger: Logger,
        tpm: (any TPMSealing)? = nil
    ) async {
        let headerName = store.name(of: .header(space))
        let journalName = store.name(of: .journal(space))
        do {
            let header = try VaultHeader(decoding: try await store.header(of: space))
            guard header.space == space else { throw VaultDamage(message: "\(headerName) names another space") }
            if header.flags.contains(.hidden) {
                loaded.hidden[space] = header
                return
            }
            let id = CollectionID(header.collectionID!)  // a visible header always has an id (checked on decode)
            guard loaded.collections[id] == nil else { throw VaultDamage(message: "a second collection named \(id)") }
            var scanned: ScannedCollection
            if header.flags.contains(.private) {
                // Nothing of a private collection is read before its passcode opens it.
                scanned = ScannedCollection(index: AttributeIndex(), hasher: KeyedHash())
            } else {
                let sealed = await unsealedIndexKey(header, tpm: tpm, collection: id, logger: logger)
                if let resumed = await fromSnapshot(
                    space, header: header, file: journalName, store: store, indexKey: sealed)
                {
                    loaded.collections[id] = CollectionVault(id: id, space: space, header: header, scanned: resumed)
                    loaded.order.append(id)
                    return
                }
                let replay = try await store.replay(space)
                if let cut = replay.cut {
                    logger.error(
                        "Cut a torn record off a journal and kept it aside (the collection's head says whether it had been acknowledged)",
                        metadata: [
                            "file": "\(journalName)", "offset": "\(cut.offset)", "bytes": "\(cut.length)",
                            "kept.at": "\(cut.keptAt ?? "-")",
                        ])
                }
                scanned = VaultOpening.scan(replay, header: header, file: journalName, indexKey: sealed)
                if !scanned.damage.isEmpty {
                    logger.error(
                        "A collection's journal is damaged: it is listed with what reads, and takes no writes until puffctl repair",
                        metadata: ["collection.id": "\(id)", "damage": "\(scanned.damage.joined(separator: "; "))"])
                }
            }
            loaded.collections[id] = CollectionVault(id: id, space: space, header: header, scanned: scanned)
            loaded.order.append(id)
        } catch {
            let reason = (error as? VaultDamage)?.message ?? "\(error)"
            logger.error(
                "A collection could not be opened", metadata: ["space": "\(space.hex)", "reason": "\(reason)"])
            loaded.damaged.append((name: name, reason: reason))
        }
    }

    /// The collection as its index snapshot and the journal's records after it show it, or nil
    /// when there is no snapshot, it does not describe this journal (shorter, another record at
    /// its end, another format), the rest does not read whole, or anything looks damaged: the
    /// caller then scans the whole journal, which reports what is wrong as it always did.
    static func fromSnapshot(
        _ space: SpaceID, header: VaultHeader, file: String, store: any RecordStore, indexKey: SecureBytes?
    ) async -> ScannedCollection? {
        guard let bytes = await store.indexSnapshot(of: space), let snapshot = IndexSnapshot(decoding: bytes),
            let tail = try? await store.replay(space, from: snapshot.lastRecordOffset),
            tail.version == snapshot.version,
            let first = tail.records.first, first.offset == snapshot.lastRecordOffset,
            (tail.records.dropFirst().first?.offset ?? tail.size) == snapshot.journalLength,
            let record = try? VaultRecord(decoding: first.bytes, format: tail.version), record.mac == snapshot.lastTag,
            (record.link?.sequence ?? 0) == snapshot.tipSequence
        else { return nil }
        let scanned = VaultOpening.scan(
            tail, header: header, file: file, indexKey: indexKey, resuming: snapshot)
        return scanned.damage.isEmpty ? scanned : nil
    }

    /// The index key a header of index storage 2 keeps sealed by the TPM, unsealed; nil for any
    /// other header, or when the TPM is absent or refuses (logged: search waits for an unlock).
    static func unsealedIndexKey(
        _ header: VaultHeader, tpm: (any TPMSealing)?, collection: CollectionID, logger: Logger
    ) async -> SecureBytes? {
        guard header.indexStorage == .tpm2, let seal = header.indexSeal else { return nil }
        guard let tpm else {
            logger.notice(
                "A collection's index key is sealed by the TPM and puffd has none: search waits for its unlock",
                metadata: ["collection.id": "\(collection)"])
            return nil
        }
        do {
            return try await tpm.unseal(seal.blob, pcrMask: seal.pcrMask, device: nil)
        } catch {
            logger.notice(
                "The TPM did not unseal a collection's index key: search waits for its unlock",
                metadata: ["collection.id": "\(collection)", "reason": "\(error)"])
            return nil
        }
    }
}
