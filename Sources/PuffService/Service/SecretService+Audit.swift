// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension SecretService {
    /// Records a request for an item's secret and how it ended: the secret reads record
    /// ``AuditResult/allowed`` themselves; an access gate that refuses a read, or whose
    /// confirmation is dismissed, records that here.
    ///
    /// Nothing is recorded for an unknown item, an item of a locked collection (its log's key is
    /// gone; such a read never reaches a secret either) or of the unpersisted `session` collection.
    public func recordRead(_ id: ItemID, caller: Caller, result: AuditResult) {
        guard let item = collectionStates[id.collection]?.items[id.number] else { return }
        audit(.read, of: id, label: item.label, caller: caller, result: result)
    }

    /// ``admit(_:caller:until:)`` with a refusal or dismissal recorded; an allowed read is
    /// recorded once its secret is encoded.
    func admitRecorded(_ id: ItemID, caller: Caller, until deadline: Duration) async -> AccessOutcome {
        // The gate may wait for a person: what earlier reads of the call did is written first.
        if mayWait(id) { auditLog?.flush() }
        let outcome = await admit(id, caller: caller, until: deadline)
        switch outcome {
        case .allowed: break
        case .refused: recordRead(id, caller: caller, result: .refused)
        case .dismissed: recordRead(id, caller: caller, result: .dismissed)
        }
        return outcome
    }

    /// Appends one entry to the log of the item's collection, if audit logs are kept and the
    /// collection is unlocked and persisted. Never blocks on the disk (``AuditLog``).
    ///
    /// With `deferred` the entry waits for ``AuditLog/flush()``: a call that reads many secrets
    /// writes their entries together.
    func audit(
        _ action: AuditAction, of id: ItemID, label: String, caller: Caller, result: AuditResult,
        deferred: Bool = false, at time: UInt64? = nil
    ) {
        guard let auditLog, let vault = collectionStates[id.collection], let space = vault.space,
            let sealer = vault.auditSealer
        else { return }
        let fields = AuditFields(
            action, result: result, time: time ?? now(), item: id.number, label: label, caller: caller)
        auditLog.append(fields, to: space, sealer: sealer, deferred: deferred)
    }

    /// Appends one entry about no item (item 0) to the log of every unlocked, persisted
    /// collection: for changes of puffd as a whole, such as an agent's registration.
    public func auditEverywhere(_ action: AuditAction, label: String, caller: Caller, result: AuditResult) {
        guard let auditLog else { return }
        for id in collectionOrder {
            guard let vault = collectionStates[id], let space = vault.space, let sealer = vault.auditSealer else {
                continue
            }
            let fields = AuditFields(action, result: result, time: now(), item: 0, label: label, caller: caller)
            auditLog.append(fields, to: space, sealer: sealer, deferred: true)
        }
        auditLog.flush()
    }

    /// Runs `save` (the journal write of a change) and records `action` as allowed, or as failed
    /// when `save` throws.
    func audited(
        _ action: AuditAction, of id: ItemID, label: String, caller: Caller,
        _ save: () async throws(ServiceError) -> Void
    ) async throws(ServiceError) {
        do {
            try await save()
        } catch {
            // A write another machine beat is made again (``retryingConflicts(in:_:)``), which
            // logs how that one ends.
            if !error.isRetried { audit(action, of: id, label: label, caller: caller, result: .failed) }
            throw error
        }
        audit(action, of: id, label: label, caller: caller, result: .allowed)
    }

    /// The audit entries made at or after `since` (seconds since the epoch) in every unlocked
    /// collection, or in `collection` only; locked collections are named, their logs unread.
    /// Never a secret. The logs are read and opened off the actor.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown `collection`.
    public func auditEntries(since: UInt64 = 0, collection: CollectionID? = nil) async throws(ServiceError)
        -> AuditReport
    {
        if let collection { _ = try state(of: collection) }
        flushFastReads()
        guard let store = auditLog?.store else {
            return AuditReport(isEnabled: false, entries: [], locked: [], problems: [])
        }
        var readable: [(CollectionID, SpaceID, SecretSealer)] = []
        var locked: [CollectionID] = []
        for id in collection.map({ [$0] }) ?? collectionOrder {
            guard let vault = collectionStates[id], let space = vault.space else { continue }
            if let sealer = vault.auditSealer {
                auditLog?.noteRemoval(of: space, sealer: sealer, time: now())
                readable.append((id, space, sealer))
            } else {
                locked.append(id)
            }
        }
        auditLog?.flush()
        let logs = readable
        let read = await BlockingWork.run {
            logs.map { id, space, sealer in
                (id, AuditReader.read(store, space: space, sealer: sealer, collection: id, since: since))
            }
        }
        return AuditReport(
            isEnabled: true, entries: read.flatMap(\.1.entries), locked: locked,
            problems: read.compactMap { id, log in log.problem.map { .init(collection: id, reason: $0) } },
            rotatedAway: Dictionary(
                uniqueKeysWithValues: read.compactMap { id, log in
                    log.rotatedAway > 0 ? (id, log.rotatedAway) : nil
                }))
    }

    /// Makes every audit entry so far durable; puffd calls it as it stops.
    public func flushAudit() async {
        flushFastReads()
        auditLog?.flush()
        guard let store = auditLog?.store else { return }
        await BlockingWork.run { try? store.sync() }
    }
}
