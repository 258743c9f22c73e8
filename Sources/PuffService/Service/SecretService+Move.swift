// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// Moves an item to another collection (`puffctl mv`, `io.puff.Control1.MoveItem`): the item
    /// is written to `target` first (its label, attributes, type, secret re-sealed under the
    /// target's key, `Created`, and its protection and access rules) and saved, and only then
    /// deleted from its collection. Interrupted in between, both copies exist: a move never loses
    /// the item. `Modified` becomes now.
    ///
    /// Moving opens the secret, so the access gate decides first, as for a read
    /// (``admit(_:caller:until:)``): a protected item asks the person, an access rule may refuse.
    /// The audit logs get a `create` entry in `target` and a `delete` entry in the source.
    ///
    /// - Returns: The item's id in `target`.
    /// - Throws: ``ServiceError/noSuchObject``; ``ServiceError/invalidArgument(_:)`` when `target`
    ///   is the item's own collection or `session`-like and cannot hold it; ``ServiceError/isLocked``
    ///   when either collection is locked; ``ServiceError/readRefused(_:)``;
    ///   ``ServiceError/limitExceeded(_:)``; ``ServiceError/failed(_:)`` when a write fails (the
    ///   message says whether the item now exists in both collections).
    public func moveItem(_ id: ItemID, to target: CollectionID, caller: Caller) async throws(ServiceError) -> ItemID {
        guard target != id.collection else { throw .invalidArgument("the item is already in \(target)") }
        _ = try record(of: id)
        guard !(try state(of: id.collection)).isLocked, !(try state(of: target)).isLocked else { throw .isLocked }
        switch await admitRecorded(id, caller: caller, until: readDeadline()) {
        case .allowed: break
        case .refused(let reason): throw .readRefused(reason)
        case .dismissed: throw .readRefused(nil)
        }
        await beginWrite()
        defer { endWrite() }
        // Looked up again: the gate may have waited for a person while anything changed.
        let record = try record(of: id)
        let source = try state(of: id.collection)
        let destination = try state(of: target)
        guard !source.isLocked, !destination.isLocked, let sealer = destination.sealer else { throw .isLocked }
        guard destination.count < limits.itemsPerCollection else {
            throw .limitExceeded("a collection holds at most \(limits.itemsPerCollection) items")
        }
        let number = destination.fields.nextItemNumber
        guard number < VaultRecord.numberLimit else {
            throw .limitExceeded("the collection has handed out every item number")
        }
        let moved = ItemID(collection: target, number: number)
        let secret = try plaintext(of: record, id, in: source)
        noteUse(source)
        noteUse(destination)
        let time = now()
        let copy = StoredItem(
            collection: target.rawValue, number: number, label: record.label, attributes: record.attributes,
            type: record.type, contentType: record.contentType,
            sealedSecret: sealer.seal(secret, associatedData: Self.sealingContext(moved)), created: record.created,
            modified: time)
        let digests = destination.digests(of: copy.attributeList)
        try await audited(.create, of: moved, label: record.label, caller: caller) { () throws(ServiceError) in
            try await persistItem(copy, digests: digests, secret: secret, in: destination, replacing: false)
        }
        destination.fields.nextItemNumber = number + 1
        destination.fields.modified = time
        destination.insert(copy, digests: digests)
        emit(.itemCreated(moved))
        if let settings = source.settings[id.number] {
            try await carry(settings, to: moved, in: destination, from: id, caller: caller)
        }
        try await removeMoved(id, label: record.label, from: source, to: moved, caller: caller, time: time)
        return moved
    }

    /// Saves the moved item's protection and access rules in its new collection; should that
    /// fail, the new copy is deleted again, so it is never readable with less protection.
    private func carry(
        _ settings: ItemSettings, to moved: ItemID, in destination: CollectionVault, from id: ItemID, caller: Caller
    ) async throws(ServiceError) {
        do throws(ServiceError) {
            if destination.space != nil, destination.sealer != nil {
                for draft in settings.drafts(from: nil, number: moved.number) {
                    try await persist(draft, in: destination, obsoleting: 0)
                }
            }
            destination.settings[moved.number] = settings
        } catch {
            logger.error(
                "A moved item's access settings could not be saved; the copy is deleted again",
                metadata: ["item.id": "\(id)", "moved.id": "\(moved)", "error": "\(error)"])
            try? await removeMoved(moved, label: "", from: destination, to: id, caller: caller, time: now())
            throw error
        }
    }

    /// Deletes the item that was copied to `copy`, as ``deleteItem(_:caller:)`` does.
    private func removeMoved(
        _ id: ItemID, label: String, from vault: CollectionVault, to copy: ItemID, caller: Caller, time: UInt64
    ) async throws(ServiceError) {
        if vault.space != nil, vault.sealer != nil {
            let draft = RecordDraft(
                kind: .itemDeleted, number: id.number, tags: [], plaintext: DeletionPayload.plaintext(time: time))
            do throws(ServiceError) {
                try await audited(.delete, of: id, label: label, caller: caller) { () throws(ServiceError) in
                    try await persist(draft, in: vault, obsoleting: 2 + vault.settingsRecordCount(of: id.number))
                }
            } catch {
                throw .failed("the item was copied to \(copy) but could not be removed from \(id.collection): \(error)")
            }
        }
        vault.remove(id.number)
        vault.fields.modified = time
        emit(.itemDeleted(id))
    }
}
