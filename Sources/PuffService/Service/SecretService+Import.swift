// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
public import PuffFormats
import PuffStore

extension SecretService {
    /// Imports `items` (read from another store by puffctl) into an unlocked collection as one
    /// durable batch: one journal append and one fsync for the whole batch, one audit entry per
    /// item added or replaced, `itemCreated`/`itemChanged` per item. Importing the same items
    /// again changes nothing: an item with the same label, attributes (the generic `xdg:schema`
    /// or none: ``PortableItem/matching(_:)``), content type and secret
    /// (``PortableItem/isSameItem(as:)``) is ``ImportOutcome/Kind/unchanged``; one with the same
    /// label and attributes but another secret is ``ImportOutcome/Kind/replaced``; a later source
    /// item with the label and attributes of an earlier one is skipped, so the first one wins
    /// every time. Created and Modified come from the source where it has them. An import that
    /// adds or replaces anything first saves the vault as an automatic snapshot
    /// (``snapshotBeforeChange(_:)``), so `puffctl restore` undoes it; a dry run or an import
    /// that changes nothing takes none.
    ///
    /// Every step over the items (deciding, sealing, auditing, applying) yields every
    /// ``importSlice`` items, so other clients are served while it runs; the write turn is held
    /// throughout, so no other change (nor a lock) interleaves. Readers may see the items appear
    /// a slice at a time once the batch is durable.
    ///
    /// - Parameters:
    ///   - dryRun: Decide and report, change nothing.
    ///   - progress: Told the items decided (each one's secret sealed), the last once saved.
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/damaged(_:)``,
    ///   ``ServiceError/failed(_:)`` when the snapshot or the batch cannot be saved (nothing changes then).
    public func importItems(
        _ items: [PortableItem], into collection: CollectionID, dryRun: Bool, caller: Caller,
        progress: ProgressHandler? = nil
    ) async throws(ServiceError) -> [ImportOutcome] {
        let meter = meter(.items, progress)
        // Decided again whole from what the collection holds after a pull, should another
        // machine append to a shared collection first.
        return try await retryingConflicts(in: collection) { () throws(ServiceError) in
            meter.expect(items.count)
            return try await importOnce(items, into: collection, dryRun: dryRun, caller: caller, meter: meter)
        }
    }

    /// One try of ``importItems(_:into:dryRun:caller:progress:)``.
    private func importOnce(
        _ items: [PortableItem], into collection: CollectionID, dryRun: Bool, caller: Caller, meter: ProgressMeter
    ) async throws(ServiceError) -> [ImportOutcome] {
        await beginWrite()
        defer { endWrite() }
        let state = try state(of: collection)
        guard !state.isLocked, let sealer = state.sealer else { throw .isLocked }
        noteUse(state)
        let time = now()
        var plan = ImportPlan(nextNumber: state.fields.nextItemNumber, count: state.count)
        for number in state.order {
            guard let record = state.items[number] else { continue }
            plan.existing[ImportPlan.key(record.label, PortableItem.matching(record.attributes)), default: []].append(
                number)
        }
        meter.advance(by: 0)
        for (index, item) in items.enumerated() {
            await Self.yieldAtSliceEnd(index)
            try decide(item, index: index, in: state, sealer: sealer, time: time, plan: &plan)
            if index < items.count - 1 { meter.advance() }
        }
        // The last item counts once the batch is saved, so the count ends with the work.
        guard !dryRun else {
            meter.finish()
            return plan.outcomes
        }
        let changed = plan.added + plan.replaced
        guard !changed.isEmpty else {
            meter.finish()
            return plan.outcomes
        }
        // An import that changes something can be undone with `puffctl restore` (docs/backup.md).
        _ = try await snapshotBeforeChange("import")
        try await persistImport(changed, in: state, replacing: plan.replaced.count, caller: caller)
        for (index, record) in plan.replaced.enumerated() {
            await Self.yieldAtSliceEnd(index)
            state.update(record.item)
            emit(
                .itemChanged(
                    ItemID(collection: collection, number: record.item.number), [.modified(record.item.modified)]))
        }
        for (index, record) in plan.added.enumerated() {
            await Self.yieldAtSliceEnd(index)
            state.insert(record.item)
            emit(.itemCreated(ItemID(collection: collection, number: record.item.number)))
        }
        state.fields.nextItemNumber = plan.nextNumber
        state.fields.modified = time
        meter.finish()
        return plan.outcomes
    }

    /// How many items an import decides, seals, audits or applies between two yields of the
    /// actor: at most a few milliseconds of work, so a reader's call waits no longer.
    static let importSlice = 128

    /// Yields the actor after every ``importSlice`` steps of a long batch.
    static func yieldAtSliceEnd(_ index: Int) async {
        if index % importSlice == importSlice - 1 { await Task.yield() }
    }

    /// Decides what happens to one source item and records it in `plan`.
    private func decide(
        _ item: PortableItem, index: Int, in state: CollectionVault, sealer: SecretSealer, time: UInt64,
        plan: inout ImportPlan
    ) throws(ServiceError) {
        let collection = state.id
        do {
            try checkLabel(item.label)
            try checkAttributes(item.attributes)
            try checkSecretSize(item.secret.count)
        } catch {
            plan.skip(index, item.label, error.description)
            return
        }
        let key = ImportPlan.key(item.label, PortableItem.matching(item.attributes))
        guard plan.seen.insert(key).inserted else {
            plan.skip(index, item.label, "an earlier item of the source has the same label and attributes")
            return
        }
        if let numbers = plan.existing[key], let first = numbers.first, var record = state.items[first] {
            for number in numbers {
                guard let candidate = state.items[number] else { continue }
                let id = ItemID(collection: collection, number: number)
                let stored = PortableItem(
                    label: candidate.label, attributes: candidate.attributes,
                    secret: try plaintext(of: candidate, id, in: state), contentType: candidate.contentType)
                if stored.isSameItem(as: item) {
                    plan.outcomes.append(ImportOutcome(kind: .unchanged, index: index, label: item.label, item: id))
                    return
                }
            }
            let id = ItemID(collection: collection, number: first)
            record.contentType = item.contentType
            record.sealedSecret = sealer.seal(item.secret, associatedData: Self.sealingContext(id))
            record.modified = item.modified ?? time
            plan.replaced.append(ImportPlan.Change(item: record, secret: item.secret))
            plan.outcomes.append(ImportOutcome(kind: .replaced, index: index, label: item.label, item: id))
            return
        }
        guard plan.count < limits.itemsPerCollection, plan.nextNumber < VaultRecord.numberLimit else {
            plan.skip(index, item.label, "the collection holds as many items as it may")
            return
        }
        let id = ItemID(collection: collection, number: plan.nextNumber)
        let created = item.created ?? time
        let record = StoredItem(
            collection: collection.rawValue, number: plan.nextNumber, label: item.label, attributes: item.attributes,
            type: "", contentType: item.contentType,
            sealedSecret: sealer.seal(item.secret, associatedData: Self.sealingContext(id)), created: created,
            modified: item.modified ?? created)
        plan.nextNumber += 1
        plan.count += 1
        plan.added.append(ImportPlan.Change(item: record, secret: item.secret))
        plan.outcomes.append(ImportOutcome(kind: .added, index: index, label: item.label, item: id))
    }

    /// Writes every changed item's record in one append, then one audit entry per item.
    private func persistImport(
        _ changes: [ImportPlan.Change], in vault: CollectionVault, replacing: Int, caller: Caller
    ) async throws(ServiceError) {
        var drafts: [RecordDraft] = []
        drafts.reserveCapacity(changes.count)
        for (index, change) in changes.enumerated() {
            await Self.yieldAtSliceEnd(index)
            let item = change.item
            let fields = ItemFields(
                label: item.label, attributes: item.attributeList, type: item.type, contentType: item.contentType,
                created: item.created, modified: item.modified)
            drafts.append(
                RecordDraft(
                    kind: .item, number: item.number, tags: vault.tags(of: item.attributeList),
                    plaintext: fields.plaintext(secret: change.secret)))
        }
        let firstReplaced = changes.count - replacing
        do {
            try await persistBatch(drafts, in: vault, obsoleting: replacing)
        } catch {
            guard !error.isRetried else { throw error }
            for (offset, change) in changes.enumerated() {
                audit(
                    offset >= firstReplaced ? .replace : .create,
                    of: ItemID(collection: vault.id, number: change.item.number), label: change.item.label,
                    caller: caller, result: .failed, deferred: true)
            }
            auditLog?.flush()
            throw error
        }
        for (offset, change) in changes.enumerated() {
            await Self.yieldAtSliceEnd(offset)
            audit(
                offset >= firstReplaced ? .replace : .create,
                of: ItemID(collection: vault.id, number: change.item.number), label: change.item.label,
                caller: caller, result: .allowed, deferred: true)
        }
        auditLog?.flush()
    }
}

extension SecretService {
    /// ``persist(_:in:obsoleting:)`` for several records: sealed at consecutive places in the
    /// collection's chain and appended with one write, one fsync and the last one's head.
    func persistBatch(_ drafts: [RecordDraft], in vault: CollectionVault, obsoleting: Int) async throws(ServiceError) {
        guard let space = vault.space, let sealer = vault.sealer, !drafts.isEmpty else { return }
        guard vault.damage.isEmpty else { throw .damaged(damagedHint(vault)) }
        if vault.format < VaultRecord.currentFormat { try await rechain(vault) }
        var tip = vault.tip
        var records: [VaultRecord] = []
        records.reserveCapacity(drafts.count)
        for (index, draft) in drafts.enumerated() {
            await Self.yieldAtSliceEnd(index)
            let link = tip.map { VaultRecord.Link(sequence: $0.sequence + 1, previous: $0.tag) } ?? .first(1)
            let record = VaultRecord(
                kind: draft.kind, number: draft.number, tags: draft.tags, plaintext: draft.plaintext, space: space,
                sealer: sealer, link: link)
            records.append(record)
            tip = (tip ?? JournalChain.Tip(sequence: 0, tag: [])).advanced(
                by: record, time: VaultRecord.time(of: draft.kind, plaintext: draft.plaintext))
        }
        let head = tip!.head(space: space, sealer: sealer)
        let encoded = records.map { $0.encoded() }
        let ticket: AppendTicket
        // A shared store's append is one entry after those this service saw (docs/design/fleet.md).
        await learnGeneration(of: space)
        let expecting = sharedLink(of: vault) == nil ? nil : expectedGeneration(of: vault, space)
        do {
            ticket = try await store.enqueueAppend(
                contentsOf: encoded, to: space, head: head.encoded(), expecting: expecting)
            try await ticket.durable()
        } catch {
            logger.error(
                "Vault write failed",
                metadata: [
                    "vault.kind": "\(store.kindName)", "collection.id": "\(vault.id)", "error": "\(error)",
                ])
            throw storeFailure(error, in: vault, "the import could not be saved")
        }
        noteAppendedEntry(to: space)
        vault.tip = tip
        vault.noteAppended(records, at: ticket.locators(of: encoded, sequences: records.map { $0.link?.sequence }))
        if obsoleting > 0 {
            vault.deadRecords += obsoleting
            await compactIfWorthIt(vault)
        }
        if records.count >= MemoryTrim.batch { MemoryTrim.trim() }
    }
}

/// An import's decisions so far (``SecretService/importItems(_:into:dryRun:caller:)``).
struct ImportPlan {
    /// A record to write and its secret in the clear (for the journal record).
    struct Change {
        var item: StoredItem
        var secret: SecureBytes
    }

    /// The collection's items by label and attributes.
    var existing: [[UInt8]: [UInt64]] = [:]
    /// The source's labels and attributes seen so far.
    var seen: Set<[UInt8]> = []
    var outcomes: [ImportOutcome] = []
    var added: [Change] = []
    var replaced: [Change] = []
    var nextNumber: UInt64
    var count: Int

    init(nextNumber: UInt64, count: Int) {
        self.nextNumber = nextNumber
        self.count = count
    }

    mutating func skip(_ index: Int, _ label: String, _ reason: String) {
        outcomes.append(ImportOutcome(kind: .skipped, index: index, label: label, reason: reason))
    }

    /// One key per label and attribute set, byte for byte (Swift's `==` on strings would join
    /// canonically equivalent ones): lengths first, so no two sets share a key.
    static func key(_ label: String, _ attributes: [String: String]) -> [UInt8] {
        var key: [UInt8] = []
        func add(_ text: String) {
            withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { key.append(contentsOf: $0) }
            key.append(contentsOf: text.utf8)
        }
        add(label)
        for (name, value) in attributes.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            add(name)
            add(value)
        }
        return key
    }
}
