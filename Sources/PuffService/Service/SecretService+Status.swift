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
    /// Why its files did not open; `""` when fine.
    public var damage: String
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
    /// Every visible collection (hidden ones while open) and every damaged one.
    public var vaultStatus: VaultStatus {
        var list: [CollectionStatus] = []
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id] else { continue }
            list.append(
                CollectionStatus(
                    id: id.rawValue, label: vault.fields.label, isLocked: vault.isLocked, itemCount: vault.count,
                    isPrivate: vault.isPrivate, isHidden: vault.isHidden, isDefault: readAlias("default") == id,
                    policy: vault.header?.passcodePolicy, damage: ""))
        }
        for (name, reason) in damaged {
            list.append(
                CollectionStatus(
                    id: name, label: "", isLocked: true, itemCount: 0, isPrivate: false, isHidden: false,
                    isDefault: false, policy: nil, damage: reason))
        }
        return VaultStatus(
            isInitialized: isInitialized, storeKind: type(of: store).kind, location: store.location ?? "",
            collections: list, problems: vaultProblems)
    }

    /// The ``Prompter/kind`` of the prompter that would answer an unlock prompt right now (the
    /// first of the configured order that can reach a person), or `"none"` when nobody would and
    /// the prompt would be dismissed.
    public nonisolated func answeringPrompter() async -> String {
        await prompter.answeringKind() ?? DismissingPrompter.kind
    }

    /// Rewrites the journal of `collection` (every collection when nil) with its live records only.
    ///
    /// Works while locked: records are copied sealed, never opened.
    ///
    /// - Returns: The bytes reclaimed.
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/failed(_:)``.
    public func compact(_ collection: CollectionID?) async throws(ServiceError) -> UInt64 {
        await beginWrite()
        defer { endWrite() }
        if let collection { _ = try state(of: collection) }
        var reclaimed: UInt64 = 0
        for id in collection.map({ [$0] }) ?? collectionOrder {
            guard let vault = collectionStates[id] else { continue }
            reclaimed += try await compact(vault)
        }
        return reclaimed
    }

    /// Compacts when dead records outweigh live ones (and are worth a rewrite); called after writes.
    func compactIfWorthIt(_ vault: CollectionVault) async {
        guard vault.deadRecords > max(vault.count, 256) else { return }
        do {
            let reclaimed = try await compact(vault)
            logger.info("Compacted a journal", metadata: ["collection.id": "\(vault.id)", "bytes": "\(reclaimed)"])
        } catch {
            // The old journal is still in place; the next write tries again.
        }
    }

    /// Rewrites the journal with the records ``JournalCompaction`` keeps, copied sealed from the
    /// store: the journal, not memory, is what the new file must match, so this is right whether
    /// the collection is locked or open, and also when called between a record's append and the
    /// in-memory change it describes.
    private func compact(_ vault: CollectionVault) async throws(ServiceError) -> UInt64 {
        guard let space = vault.space else { return 0 }
        let file = store.location.map { "\($0)/\(space.hex).journal" } ?? space.hex
        do {
            let kept = try JournalCompaction.kept(try await store.replay(space).records, file: file)
            let reclaimed = try await store.rewrite(space, records: kept.records)
            vault.deadRecords = kept.deadRecords
            return reclaimed
        } catch {
            logger.error("Compaction failed", metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            throw .failed("the collection could not be compacted")
        }
    }
}
