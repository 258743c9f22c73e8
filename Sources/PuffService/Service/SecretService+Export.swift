// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
public import PuffFormats
import PuffStore

extension SecretService {
    /// Hands a whole collection to `puffctl export` (issue 25 item 2, docs/migration.md): its
    /// label, times and every item with its secret, for a file another provider opens under
    /// another password. That copy weakens protection, so the person agrees first: with the
    /// collection's passcode (which also unlocks a locked collection), or, for an unlocked one,
    /// with a yes through the prompter chain (``requireConsent(_:in:change:caller:through:)``).
    ///
    /// Then every item passes the access gate as a `GetSecret` would (``admit(_:caller:until:)``):
    /// a protected item asks the person, each time; an access rule for the caller's executable
    /// may refuse. An item kept back is left out and named in ``ExportResult/leftOut``. Once a
    /// question goes unanswered, later ones are not asked (dismissed at once): nobody is there.
    ///
    /// Audited: one `export` entry per item, allowed, refused or dismissed, so each item's own
    /// history shows every copy of its secret that left; a refused consent is one `export`
    /// entry for item 0. The work yields every ``importSlice`` items.
    ///
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/isLocked`` for a locked collection
    ///   without a passcode, or one locked while the person was asked (nothing is handed out);
    ///   ``ServiceError/wrongPasscode(_:)``; ``ServiceError/notConfirmed(_:)``;
    ///   ``ServiceError/failed(_:)`` when a stored secret does not open.
    public func exportItems(
        of collection: CollectionID, consent: Consent, caller: Caller, progress: ProgressHandler? = nil
    ) async throws(ServiceError) -> ExportResult {
        let vault = try state(of: collection)
        try await agreeToExport(vault, consent: consent, caller: caller)
        let meter = meter(.items, progress)
        let numbers = vault.order
        meter.expect(numbers.count)
        meter.advance(by: 0)
        var items: [PortableItem] = []
        var leftOut: [ExportResult.LeftOut] = []
        var exported: [(ItemID, String)] = []
        var mayAsk = true
        // Refusals are written as they happen; what was exported once the whole result is ready.
        defer { auditLog?.flush() }
        do throws(ServiceError) {
            for (index, number) in numbers.enumerated() {
                if index % Self.importSlice == Self.importSlice - 1 { await Task.yield() }
                defer { meter.advance() }
                let id = ItemID(collection: collection, number: number)
                guard let label = try exportable(collection).items[number]?.label else { continue }
                if mayWait(id) { auditLog?.flush() }
                let outcome = await admit(id, caller: caller, until: mayAsk ? readDeadline() : timeline.now)
                // Looked up again: the gate may have waited for a person while anything changed.
                let state = try exportable(collection)
                guard let record = state.items[number] else { continue }
                switch outcome {
                case .allowed:
                    items.append(
                        PortableItem(
                            label: record.label, attributes: record.attributes,
                            secret: try plaintext(of: record, id, in: state), contentType: record.contentType,
                            created: record.created, modified: record.modified))
                    exported.append((id, record.label))
                case .refused(let reason):
                    leftOut.append(.init(item: id, label: label, reason: ServiceError.refusal(reason)))
                    audit(.export, of: id, label: label, caller: caller, result: .refused, deferred: true)
                case .dismissed:
                    mayAsk = false
                    leftOut.append(.init(item: id, label: label, reason: ServiceError.refusal(nil)))
                    audit(.export, of: id, label: label, caller: caller, result: .dismissed, deferred: true)
                }
            }
        } catch {
            for (id, label) in exported {
                audit(.export, of: id, label: label, caller: caller, result: .failed, deferred: true)
            }
            throw error
        }
        meter.finish()
        for (id, label) in exported {
            audit(.export, of: id, label: label, caller: caller, result: .allowed, deferred: true)
        }
        noteUse(vault)
        logger.notice(
            "Collection exported",
            metadata: [
                "collection.id": "\(collection)", "client.name": "\(caller.client.rawValue)",
                "items": "\(items.count)", "left.out": "\(leftOut.count)",
            ])
        return ExportResult(
            collection: PortableCollection(
                label: vault.fields.label, items: items, created: vault.fields.created,
                modified: vault.fields.modified),
            leftOut: leftOut)
    }

    /// The person's agreement to an export: the passcode (opening a locked collection with it),
    /// or a yes through the prompter chain. A refusal is audited as an `export` of item 0.
    private func agreeToExport(_ vault: CollectionVault, consent: Consent, caller: Caller) async throws(ServiceError) {
        let collection = vault.id
        do throws(ServiceError) {
            if vault.isLocked {
                guard case .passcode(let passcode) = consent else { throw .isLocked }
                let since = vault.lockCount  // a Lock while the passcode is derived wins
                try await open(vault, master: try await masterKey(of: collection, with: .typed(passcode)), since: since)
            } else {
                let change =
                    "export its \(vault.count) items to a file that another program opens with another password"
                try await requireConsent(consent, in: collection, change: change, caller: caller)
            }
        } catch {
            audit(
                .export, of: ItemID(collection: collection, number: 0), label: vault.fields.label, caller: caller,
                result: Self.auditResult(of: error))
            throw error
        }
    }

    /// The collection while an export may read it: ``ServiceError/noSuchObject`` when it was
    /// deleted meanwhile, ``ServiceError/isLocked`` when it was locked.
    private func exportable(_ collection: CollectionID) throws(ServiceError) -> CollectionVault {
        guard let state = collectionStates[collection] else { throw .noSuchObject }
        guard !state.isLocked else { throw .isLocked }
        return state
    }
}
