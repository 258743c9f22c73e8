// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

extension SecretService {
    /// `passwd` of a fleet collection, which is never re-keyed (its chain of records is the other
    /// machines' too, docs/design/fleet.md §4): the passcode slot alone changes, as a slot change
    /// (``slotChange(_:of:label:proof:caller:check:prepare:change:)``). The passcode slot the proof
    /// opened (else the first passcode slot) gives way to a new slot under the next id, with its
    /// label, salt and cost, wrapping the same master key under a key from `new`; the header goes
    /// to the shared store compare-and-set, and the other machines take it at their next poll or
    /// unlock (docs/design/fleet.md §5). A new id, since ids are never reused: a machine refuses
    /// the old header put back, whose old passcode slot it no longer has.
    ///
    /// Not a re-key: a copy of the old header, and OpenBao keeps earlier versions of it, still
    /// opens with the old passcode (docs/fleet.md, Limits).
    ///
    /// - Throws: ``ServiceError/noMatchingSlot(_:)`` for a collection without a passcode slot, and
    ///   what a slot change throws (``ServiceError/wrongPasscode(_:)``, ``ServiceError/failed(_:)``,
    ///   ``ServiceError/offline(collection:reason:)``).
    func changeSharedPasscode(of id: CollectionID, proof: SlotCredential, new: SecureBytes)
        async throws(ServiceError)
    {
        try await slotChange(
            .slotAdd, of: id, label: "passcode (passwd of a fleet collection: a new passcode slot, no new key)",
            proof: proof, caller: .daemon
        ) { header throws(ServiceError) in
            guard header.slots.contains(where: { $0.kind == .passcode }) else {
                throw .noMatchingSlot(
                    "collection \(id) has no passcode slot to change: add one (puffctl slot add \(id) passcode)")
            }
        } prepare: { header, opened throws(ServiceError) in
            let typed = try Self.passcodeTarget(in: header, opened: opened).typed
            return (typed, try await self.typedKey(new, typed))
        } change: { current, opened, prepared throws(ServiceError) in
            var header = try Self.slotted(current, opened)
            let target = try Self.passcodeTarget(in: header, opened: opened)
            // The typed slots' salt changed meanwhile: the key derived is for the old one.
            guard target.typed == prepared.0 else { throw .wrongPasscode(nil) }
            let label = header.slots[target.index].label
            header.slots.remove(at: target.index)
            do {
                try header.addSlot(
                    label: label, parameters: .passcode(target.typed), master: opened.master,
                    kek: SlotKeys.kek(from: prepared.1, kind: KeySlot.Kind.passcode.rawValue))
            } catch {
                throw .failed("the new passcode slot could not be made")
            }
            return header
        }
        logger.notice(
            "A fleet collection's passcode changed (its passcode slot, not its key)",
            metadata: ["collection.id": "\(id)"])
    }

    /// The passcode slot a fleet collection's `passwd` replaces: the one that opened, else the
    /// first; with the Argon2id salt and cost it shares with the other typed slots.
    private static func passcodeTarget(in header: VaultHeader, opened: OpenedSlot) throws(ServiceError)
        -> (index: Int, typed: KeySlot.Typed)
    {
        let index =
            header.slots.firstIndex { $0.id == opened.slot && $0.kind == .passcode }
            ?? header.slots.firstIndex { $0.kind == .passcode }
        // The passcode slot was removed while the new passcode's key was derived.
        guard let index, case .passcode(let typed) = header.slots[index].parameters else { throw .wrongPasscode(nil) }
        return (index, typed)
    }
}
