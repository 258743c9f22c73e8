// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

/// What `puffctl repair` did to a damaged collection.
public struct RepairReport: Sendable, Equatable {
    /// How many records the new journal holds.
    public var keptRecords: Int
    /// What was left out or found missing, as `status` named it (file, offset, why).
    public var lost: [String]
    /// Where the old journal is kept, untouched (never deleted by Puff).
    public var keptAt: String
}

extension SecretService {
    /// Rewrites a collection's journal with every record that authenticates in its place in the
    /// chain (compacted, sealed again in a new chain), keeps the old journal beside it as
    /// `<space>.journal.damaged-<time>`, and locks the collection so its next unlock reads what was
    /// kept (issue 24 item 20). A collection without damage is rewritten the same way, losing
    /// nothing.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked`` (the records can only be
    ///   checked and sealed again with the key), ``ServiceError/failed(_:)``.
    public func repair(_ id: CollectionID) async throws(ServiceError) -> RepairReport {
        await beginWrite()
        defer { endWrite() }
        let vault = try state(of: id)
        guard let space = vault.space else { throw .noSuchObject }
        if let refusal = sharedRefusal(vault, "repair") { throw refusal }
        guard let sealer = vault.sealer, !vault.isLocked else { throw .isLocked }
        let file = store.name(of: .journal(space))
        let journal: JournalReplay
        do {
            journal = try await store.replay(space)
        } catch {
            throw .failed("the journal cannot be read: \(error)")
        }
        let salvaged = await BlockingWork.result { () throws(VaultDamage) in
            try JournalResealing.salvage(journal, space: space, sealer: sealer, file: file)
        }
        guard case .success(let (result, lost)) = salvaged else {
            if case .failure(let damage) = salvaged { throw .failed(damage.message) }
            throw .failed("the journal could not be repaired")
        }
        _ = try await snapshotBeforeChange("repair")
        let suffix: String
        do {
            // A second repair within the same second gets `.damaged-<time>-2`: never the first's name.
            suffix =
                try await store.rewrite(
                    space, records: result.records, version: VaultRecord.currentFormat,
                    keepingOldAs: ".damaged-\(now())"
                ).keptAs ?? ""
            if let head = result.head { try await store.replaceHead(head, of: space) }
        } catch {
            logger.error("Repair failed", metadata: ["collection.id": "\(id)", "error": "\(error)"])
            throw .failed("the repaired journal could not be written: \(error)")
        }
        vault.relocate(after: result.records)
        vault.noteRepaired()
        vault.tip = result.tip
        vault.format = VaultRecord.currentFormat
        vault.deadRecords = result.deadRecords
        logger.notice(
            "Repaired a collection: kept every record that authenticates, the old journal is kept aside",
            metadata: [
                "collection.id": "\(id)", "kept.records": "\(result.records.count)", "kept.at": "\(file)\(suffix)",
                "lost": "\(lost.joined(separator: "; "))",
            ])
        // The next unlock reads what was kept, so memory matches the new journal.
        lockNow(id)
        return RepairReport(keptRecords: result.records.count, lost: lost, keptAt: file + suffix)
    }
}
