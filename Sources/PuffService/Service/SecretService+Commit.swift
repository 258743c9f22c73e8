// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// A record queued for its journal by ``SecretService/prepare(_:in:obsoleting:number:keys:creates:apply:)``,
/// to be awaited by ``SecretService/commit(_:)``.
struct PreparedWrite {
    let vault: CollectionVault
    /// Nil for the in-memory `session` collection, which writes nothing.
    let entry: PendingWrites.Entry?
    let apply: (() -> Void)?
}

extension SecretService {
    /// Seals `draft` at the collection's next place in its chain (after its pending writes) and
    /// queues it with its head for the journal. Call it holding the write turn; the record is
    /// durable once ``commit(_:)`` returns.
    ///
    /// - Parameters:
    ///   - number: The item it writes or deletes, for later writes' checks (``PendingWrites``).
    ///   - keys: The attribute index keys it changes (old and new), likewise.
    ///   - creates: Whether it adds an item.
    ///   - apply: The in-memory change and its events, made once the record is durable, in chain
    ///     order; nil when the caller makes it after ``commit(_:)`` itself.
    /// - Throws: ``ServiceError/damaged(_:)``, ``ServiceError/failed(_:)``,
    ///   ``ServiceError/vaultUnwritable(_:folder:)``.
    func prepare(
        _ draft: RecordDraft, in vault: CollectionVault, obsoleting: Int, number: UInt64? = nil,
        keys: [Digest128] = [], creates: Bool = false, apply: (() -> Void)? = nil
    ) async throws(ServiceError) -> PreparedWrite {
        guard let space = vault.space, let sealer = vault.sealer else {
            return PreparedWrite(vault: vault, entry: nil, apply: apply)
        }
        guard vault.damage.isEmpty else { throw .damaged(damagedHint(vault)) }
        if vault.format < VaultRecord.currentFormat {
            await drain(vault)
            _ = try await rechain(vault)
        }
        let tip = vault.pending.tip ?? vault.tip
        let link = tip.map { VaultRecord.Link(sequence: $0.sequence + 1, previous: $0.tag) } ?? .first(1)
        let record = VaultRecord(
            kind: draft.kind, number: draft.number, tags: draft.tags, plaintext: draft.plaintext, space: space,
            sealer: sealer, link: link)
        let next = (tip ?? JournalChain.Tip(sequence: 0, tag: [])).advanced(
            by: record, time: VaultRecord.time(of: draft.kind, plaintext: draft.plaintext))
        let head = next.head(space: space, sealer: sealer)
        await learnGeneration(of: space)
        let generation = expectedGeneration(of: vault, space)
        let ticket: AppendTicket
        do {
            ticket = try await store.enqueueAppend(
                contentsOf: [record.encoded()], to: space, head: head.encoded(), expecting: generation)
        } catch {
            logWriteFailure(error, in: vault)
            throw storeFailure(error, in: vault, "the change could not be saved")
        }
        // A write that failed while this one was being queued fails this one too (the store sees
        // its generation as stale): it must not become the tip later writes link to.
        guard expectedGeneration(of: vault, space) == generation, (vault.pending.tip ?? vault.tip) == tip else {
            throw .failed("the change could not be saved")
        }
        let entry = PendingWrites.Entry(
            tip: next, record: record, ticket: ticket, number: number, keys: keys, creates: creates,
            obsoleting: obsoleting, apply: apply)
        vault.pending.append(entry)
        pendingWrites += 1
        return PreparedWrite(vault: vault, entry: entry, apply: apply)
    }

    /// Waits until the prepared record is durable, then applies it and every earlier one of its
    /// collection, in chain order. Call it after releasing the write turn, so later writes queue
    /// meanwhile and share the flush (or holding it, as ``persist(_:in:obsoleting:)`` does).
    ///
    /// - Throws: ``ServiceError/failed(_:)``, ``ServiceError/vaultUnwritable(_:folder:)``: this
    ///   record, or an earlier one of the collection, was not written; nothing of it is in memory.
    func commit(_ write: PreparedWrite) async throws(ServiceError) {
        guard let entry = write.entry else {
            write.apply?()
            return
        }
        try? await entry.ticket.durable()
        settle(write.vault)
        if let failure = entry.failure { throw storeFailure(failure, in: write.vault, "the change could not be saved") }
    }

    /// Applies, oldest first, the collection's pending writes whose flush returned; the first that
    /// failed fails every later one, and the next write links to the last one written.
    func settle(_ vault: CollectionVault) {
        while let first = vault.pending.entries.first, let outcome = first.ticket.outcome {
            switch outcome {
            case .success:
                _ = vault.pending.removeFirst()
                pendingWrites -= 1
                vault.tip = first.tip
                if let space = vault.space { noteAppendedEntry(to: space) }
                vault.noteAppended(
                    [first.record],
                    at: first.ticket.locators(of: [first.record.encoded()], sequences: [first.record.link?.sequence]))
                vault.deadRecords += first.obsoleting
                first.isSettled = true
                first.apply?()
            case .failure(let error):
                logWriteFailure(error, in: vault)
                if let space = vault.space { journalGenerations[space] = first.ticket.generation }
                while let entry = vault.pending.removeFirst() {
                    entry.failure = error
                    pendingWrites -= 1
                }
            }
        }
        if vault.pending.isEmpty, !drainWaiters.isEmpty {
            let waiters = drainWaiters
            drainWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func logWriteFailure(_ error: any Error, in vault: CollectionVault) {
        logger.error(
            "Vault write failed",
            metadata: [
                "vault.kind": "\(store.kindName)", "collection.id": "\(vault.id)", "error": "\(error)",
            ])
    }
}

extension SecretService {
    /// Runs `body` holding the write turn without waiting for pending writes
    /// (``beginPipelinedWrite()``); the turn is released when it returns or throws.
    func withPipelinedTurn<T>(_ body: () async throws(ServiceError) -> T) async throws(ServiceError) -> T {
        await beginPipelinedWrite()
        defer { endWrite() }
        return try await body()
    }

    /// Compacts `vault`'s journal if a settled write left it worth it, taking the turn for that.
    func compactAfterWrite(_ vault: CollectionVault) async {
        // A fleet collection's chain is shared: it is never rewritten (docs/design/fleet.md §4).
        guard vault.deadRecords > max(vault.count, 256), sharedLink(of: vault) == nil else { return }
        await beginWrite()
        defer { endWrite() }
        await compactIfWorthIt(vault)
    }
}
