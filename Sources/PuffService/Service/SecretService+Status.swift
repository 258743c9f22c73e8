// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// One collection as `puffctl status` shows it.
public struct CollectionStatus: Sendable, Equatable {
    public var id: String
    public var label: String
    public var isLocked: Bool
    public var itemCount: Int
    public var isPrivate: Bool
    public var isHidden: Bool
    public var isDefault: Bool
    /// What a new passcode must look like; nil when unknown (damaged, or written by a newer Puff).
    public var policy: PasscodePolicy?
    /// Why its files did not open, or what in them is damaged (file, offset, why; records left
    /// out); `""` when fine.
    public var damage: String
    /// `always`, `after-unlock` or `never` (docs/collections.md); `""` when damaged.
    public var lockedSearch = ""
    /// Where the key of an `always` collection's blind index lives: `clear` (in its header),
    /// `tpm2` (sealed by this machine's TPM, wrapped under the collection key; no key in the
    /// files); `""` for the other modes, whose index key is derived from the collection key.
    public var indexKey = ""
    /// Whether the TPM did not unseal its index key at start, so that until it is unlocked, search
    /// finds none of its items while it is locked.
    public var searchWaitsForUnlock = false
    /// For a fleet collection, its shared name and whether its store answered last; nil for a
    /// collection this vault alone holds.
    public var shared: SharedLink?
}

/// The vault as `puffctl status` shows it.
public struct VaultStatus: Sendable, Equatable {
    public var isInitialized: Bool
    public var storeKind: String
    public var location: String
    public var collections: [CollectionStatus]
    /// What is wrong with the vault beside its collections, each naming the file and why.
    public var problems: [String] = []
}

extension SecretService {
    /// Every visible collection (hidden ones while open) and every damaged one, once the journals
    /// a start read from index snapshots are checked (``journalsChecked()``).
    public var vaultStatus: VaultStatus {
        get async {
            await journalsChecked()
            return currentStatus
        }
    }

    private var currentStatus: VaultStatus {
        var list: [CollectionStatus] = []
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id] else { continue }
            list.append(
                CollectionStatus(
                    id: id.rawValue, label: vault.fields.label, isLocked: vault.isLocked, itemCount: vault.count,
                    isPrivate: vault.isPrivate, isHidden: vault.isHidden, isDefault: readAlias("default") == id,
                    policy: vault.header?.passcodePolicy, damage: vault.damage.joined(separator: "; "),
                    lockedSearch: vault.lockedSearch.description, indexKey: Self.indexKeyPlace(vault.header),
                    searchWaitsForUnlock: vault.waitsForIndexKey, shared: sharedLink(of: vault)))
        }
        for (name, reason) in damaged {
            list.append(
                CollectionStatus(
                    id: name, label: "", isLocked: true, itemCount: 0, isPrivate: false, isHidden: false,
                    isDefault: false, policy: nil, damage: reason))
        }
        return VaultStatus(
            isInitialized: isInitialized, storeKind: store.kindName, location: store.location ?? "",
            collections: list, problems: vaultProblems)
    }

    /// ``CollectionStatus/indexKey`` for `header`.
    static func indexKeyPlace(_ header: VaultHeader?) -> String {
        switch header?.indexStorage {
        case .clear: "clear"
        case .tpm2: "tpm2"
        case .none?, nil: ""
        }
    }

    /// The ``Prompter/kind`` of the prompter that would answer an unlock prompt right now (the
    /// first of the configured order that can reach a person), or `"none"` when nobody would and
    /// the prompt would be dismissed.
    public nonisolated func answeringPrompter() async -> String {
        await prompter.answeringKind() ?? DismissingPrompter.kind
    }

    /// Rewrites the journal of `collection` (every collection when nil) with its live records only,
    /// sealed again in a new chain (docs/vault-format.md, Records).
    ///
    /// Needs the record key: a locked collection is skipped when all are compacted, and refused
    /// when named.
    ///
    /// - Returns: The bytes reclaimed.
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/damaged(_:)``,
    ///   ``ServiceError/failed(_:)``.
    public func compact(_ collection: CollectionID?, progress: ProgressHandler? = nil) async throws(ServiceError)
        -> UInt64
    {
        await beginWrite()
        defer { endWrite() }
        if let collection, try state(of: collection).isLocked, collection != .session { throw .isLocked }
        // Compacting all skips fleet collections, whose chain is shared; one named is refused.
        let vaults = (collection.map { [$0] } ?? collectionOrder).compactMap { id in
            collectionStates[id].flatMap { $0.isLocked || (collection == nil && sharedLink(of: $0) != nil) ? nil : $0 }
        }
        // Every journal record is opened, and every kept one sealed again: about the live items
        // twice plus the dead records, until the journal is read and the estimate revised.
        let meter = meter(.records, progress)
        let estimates = vaults.map { 2 * $0.count + $0.deadRecords + 1 }
        meter.expect(estimates.reduce(0, +))
        meter.advance(by: 0)
        var reclaimed: UInt64 = 0
        for (vault, estimate) in zip(vaults, estimates) {
            reclaimed += try await rechain(vault, progress: (meter, estimate))
        }
        meter.finish()
        return reclaimed
    }

    /// Compacts when dead records outweigh live ones (and are worth a rewrite); called after writes.
    func compactIfWorthIt(_ vault: CollectionVault) async {
        guard vault.deadRecords > max(vault.count, 256), sharedLink(of: vault) == nil else { return }
        do {
            let reclaimed = try await rechain(vault)
            logger.info("Compacted a journal", metadata: ["collection.id": "\(vault.id)", "bytes": "\(reclaimed)"])
            await saveIndexSnapshot(of: vault)
        } catch {
            // The old journal is still in place; the next write tries again.
        }
    }

    /// Rewrites the journal with the records ``JournalCompaction`` keeps, sealed again by
    /// ``JournalResealing`` after checking the whole journal: the journal, not memory, is what
    /// the new file must match, so this is right also when called between a record's append and
    /// the in-memory change it describes. Upgrades a format 1 journal. The caller holds the
    /// write turn. `tagging` remakes the item records' tags (a change of locked search).
    ///
    /// - Returns: The bytes reclaimed.
    /// `progress` counts the records opened and sealed against the `estimate` made for this vault.
    func rechain(
        _ vault: CollectionVault, tagging: JournalResealing.Tagging = .kept,
        progress: (meter: ProgressMeter, estimate: Int)? = nil
    ) async throws(ServiceError) -> UInt64 {
        guard let space = vault.space else { return 0 }
        // Compaction, a change of locked search and an upgrade all write a new chain.
        if let refusal = sharedRefusal(vault, "rewriting the journal") { throw refusal }
        guard let sealer = vault.sealer else { throw .isLocked }
        guard vault.damage.isEmpty else { throw .damaged(Self.repairHint(vault)) }
        let file = store.name(of: .journal(space))
        let journal: JournalReplay
        do {
            journal = try await store.replay(space)
        } catch {
            logger.error("Compaction failed", metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            throw .failed("the collection could not be compacted")
        }
        let expected = vault.tip
        let start = (vault.tip?.sequence ?? 0) + 1
        var counting: (@Sendable () -> Void)?
        if let (meter, estimate) = progress {
            // Every record opened, and the collection's record and its live items sealed again.
            meter.revise(estimate, to: journal.records.count + vault.count + 1)
            counting = { meter.advance() }
        }
        let resealed = await BlockingWork.result { [counting] () throws(VaultDamage) in
            try JournalResealing.reseal(
                journal, space: space, sealer: sealer, expected: expected, start: start, file: file,
                tagging: tagging, counting: counting)
        }
        guard case .success(let result) = resealed else {
            if case .failure(let damage) = resealed {
                vault.noteDamage([damage.message])
                logger.error(
                    "Compaction found damage: writes wait for puffctl repair",
                    metadata: ["collection.id": "\(vault.id)", "reason": "\(damage.message)"])
            }
            throw .damaged(Self.repairHint(vault))
        }
        do {
            let reclaimed: UInt64
            if journal.version < VaultRecord.currentFormat {
                // An unchained journal ignores any head: the head first, so a crash between the
                // two leaves either the old journal or the new one with its head.
                if let head = result.head { try await store.replaceHead(head, of: space) }
                reclaimed = try await store.rewrite(space, records: result.records)
            } else {
                // The new chain numbers on from the old head, which therefore reads as older.
                reclaimed = try await store.rewrite(space, records: result.records)
                if let head = result.head { try await store.replaceHead(head, of: space) }
            }
            vault.relocate(after: result.records)
            MemoryTrim.trim()
            vault.tip = result.tip
            vault.format = VaultRecord.currentFormat
            vault.deadRecords = result.deadRecords
            return reclaimed
        } catch {
            logger.error("Compaction failed", metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            throw unsaved(error, "the collection could not be compacted")
        }
    }
}
