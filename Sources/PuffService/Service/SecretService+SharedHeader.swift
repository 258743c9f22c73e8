// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// A fleet collection's header changed on another machine (docs/design/fleet.md §5): its unlock
/// slots (a passcode changed, a slot added or removed). The shared store's header is taken here
/// only once it authenticates under the collection's key, which a planted one (written by
/// someone with write access to the store and not the key) never does; taken, it replaces the
/// local header as a slot change here would.
extension SecretService {
    /// Why `candidate`, a newer header from the shared store, cannot follow `current`, checked under
    /// the collection's header key; nil when it can.
    ///
    /// Besides its MAC, an older header put back (the store's operator can write any earlier
    /// version again, and it authenticates) is refused by its slot ids, which are never reused:
    /// its next id is lower than the current one's, or it holds a slot the current one has
    /// removed (a passcode changed here or on another machine, a revoked machine's slot).
    static func sharedHeaderRefusal(_ candidate: VaultHeader, after current: VaultHeader, headerKey: SecureBytes)
        -> String?
    {
        guard candidate.space == current.space, candidate.collectionID == current.collectionID else {
            return "it names another collection"
        }
        guard !candidate.isLegacy else {
            return "it is a version \(candidate.version) header, which carries no MAC to check it by"
        }
        do {
            try candidate.verifyMAC(headerKey: headerKey)
        } catch {
            return "it does not authenticate under the collection's key: it was written without it"
        }
        guard candidate.nextSlotID >= current.nextSlotID else {
            return "its next slot id \(candidate.nextSlotID) is below this machine's \(current.nextSlotID): "
                + "an older header put back"
        }
        let known = Set(current.slots.map(\.id))
        if let back = candidate.slots.first(where: { $0.id < current.nextSlotID && !known.contains($0.id) }) {
            return "it holds slot \(back.id), which this machine's header no longer has: an older header put back"
        }
        return nil
    }

    /// The shared store's header of `space` when it is newer than the one taken last and not one
    /// refused before; nil too when the store cannot be reached (a pull reports that).
    func newerSharedHeader(_ space: SpaceID) async -> (found: SharedHeader, header: VaultHeader?)? {
        guard store.sharedName(of: space) != nil else { return nil }
        let found: SharedHeader?
        do {
            found = try await store.sharedHeader(of: space)
        } catch {
            logger.debug("A shared header could not be read", metadata: ["error": "\(error)"])
            return nil
        }
        guard let found, refusedSharedHeaders[space] != found.version else { return nil }
        return (found, try? VaultHeader(decoding: found.bytes))
    }

    /// Takes the shared store's newer header of an unlocked fleet collection, checked with the
    /// header key its unlock kept (the poll, holding the write turn). A locked collection's waits
    /// for its next unlock (``openSlot(of:_:with:only:tpmOnly:)``), which has a key to check it.
    ///
    /// - Returns: Whether one was taken.
    @discardableResult
    func takeSharedHeader(of vault: CollectionVault) async -> Bool {
        guard let space = vault.space, let key = vault.headerKey, let current = vault.header,
            let shared = await newerSharedHeader(space)
        else { return false }
        // Locked (or re-keyed) meanwhile: the next unlock checks it.
        guard vault.headerKey != nil, vault.space == space, vault.header == current else { return false }
        guard let candidate = shared.header else {
            refuseSharedHeader(shared.found, of: vault, "it does not read as a header")
            return false
        }
        if let why = Self.sharedHeaderRefusal(candidate, after: current, headerKey: key) {
            refuseSharedHeader(shared.found, of: vault, why)
            return false
        }
        return await adoptSharedHeader(shared.found, candidate, of: vault)
    }

    /// Opens one of `vault`'s slots with `credential` (``openSlot(of:with:only:tpmOnly:)``), taking
    /// a newer header of a fleet collection from its shared store first, unless the store was
    /// found unreachable last: after a passcode changed on another machine, the new passcode
    /// opens it, and the old one, or a slot removed there, opens it no more once this machine
    /// has read that header.
    ///
    /// The newer header is tried first. A master key it gives must be the collection's: the
    /// header this machine holds authenticates under it, and the newer one passes
    /// ``sharedHeaderRefusal(_:after:headerKey:)``. Otherwise the credential is tried on the header
    /// this machine holds; the newer header is taken when it passes under the key that gave, and
    /// the credential is then refused as the newer header refused it. A newer header that passes
    /// nothing is refused with a logged reason and the collection opens as before.
    func openSlot(
        of vault: CollectionVault, _ header: VaultHeader, with credential: SlotCredential, only: KeySlot.ID?,
        tpmOnly: Bool = false
    ) async throws(ServiceError) -> OpenedSlot {
        guard let space = vault.space, sharedLinks[space]?.reachable != false,
            let shared = await newerSharedHeader(space)
        else {
            return try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
        }
        let found = shared.found
        guard let candidate = shared.header else {
            refuseSharedHeader(found, of: vault, "it does not read as a header")
            return try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
        }
        // The same header under a later version (written again, rolled back to): nothing to check.
        if candidate == header {
            await takeHoldingTurn(found, candidate, of: vault)
            return try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
        }
        let tried: Result<OpenedSlot, ServiceError>
        do {
            tried = .success(try await openSlot(of: candidate, with: credential, only: only, tpmOnly: tpmOnly))
        } catch {
            tried = .failure(error)
        }
        switch tried {
        case .success(let opened):
            guard !header.isLegacy else {
                // Nothing here tells this key from another: the old credential takes the header.
                logger.notice(
                    "A fleet collection's newer header cannot be checked against this machine's, which has no MAC",
                    metadata: [
                        "collection.id": "\(vault.id)",
                        "next": "unlock once with a credential this machine's header takes",
                    ])
                return try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
            }
            let why: String? =
                (try? header.verifyMAC(with: opened.master)) == nil
                ? "the key it gave is not the collection's"
                : Self.sharedHeaderRefusal(candidate, after: header, headerKey: opened.master.subkey(.header))
            guard let why else {
                await takeHoldingTurn(found, candidate, of: vault)
                return opened
            }
            refuseSharedHeader(found, of: vault, why)
            return try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
        case .failure(let refusedByNewer):
            let opened = try await openSlot(of: header, with: credential, only: only, tpmOnly: tpmOnly)
            let headerKey = opened.master.subkey(.header)
            if let why = Self.sharedHeaderRefusal(candidate, after: header, headerKey: headerKey) {
                refuseSharedHeader(found, of: vault, why)
                return opened
            }
            // The collection's own newer header, which this credential does not open.
            await takeHoldingTurn(found, candidate, of: vault)
            throw refusedByNewer
        }
    }

    /// ``adoptSharedHeader(_:_:of:)`` in the write turn, for an unlock, which does not hold it.
    private func takeHoldingTurn(_ found: SharedHeader, _ header: VaultHeader, of vault: CollectionVault) async {
        await beginWrite()
        defer { endWrite() }
        await adoptSharedHeader(found, header, of: vault)
    }

    /// Writes `found` (read as `header`, checked) as `vault`'s local header and takes it in
    /// memory. The caller holds the write turn, so no slot change here interleaves.
    ///
    /// - Returns: Whether it was taken.
    @discardableResult
    func adoptSharedHeader(_ found: SharedHeader, _ header: VaultHeader, of vault: CollectionVault) async -> Bool {
        guard let space = vault.space else { return false }
        do {
            guard try await store.adoptHeader(found, of: space) else { return false }
        } catch {
            logger.error(
                "A fleet collection's newer header could not be written here: it is taken at the next try",
                metadata: ["collection.id": "\(vault.id)", "error": "\(error)"])
            return false
        }
        guard collectionStates[vault.id] === vault, vault.space == space else { return false }
        let before = vault.header?.slots.map(\.id) ?? []
        vault.header = header
        logger.notice(
            "A fleet collection's unlock slots were changed on another machine: this machine now opens it by them",
            metadata: [
                "collection.id": "\(vault.id)", "shared.version": "\(found.version)",
                "slots.before": "\(before)", "slots.now": "\(header.slots.map(\.id))",
            ])
        return true
    }

    /// Notes that the shared store's header `found` is not taken for `vault`, and why, once per
    /// version: the collection goes on with its own header.
    func refuseSharedHeader(_ found: SharedHeader, of vault: CollectionVault, _ why: String) {
        guard let space = vault.space, refusedSharedHeaders[space] != found.version else { return }
        refusedSharedHeaders[space] = found.version
        logger.error(
            "A fleet collection's header in the shared store was refused: this machine keeps its own",
            metadata: [
                "collection.id": "\(vault.id)", "shared.name": "\(store.sharedName(of: space) ?? "")",
                "shared.version": "\(found.version)", "reason": "\(why)",
            ])
    }
}
