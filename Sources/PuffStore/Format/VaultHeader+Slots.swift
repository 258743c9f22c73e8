// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Wrapping the master key per slot, and the header MAC (docs/design/unlock-slots.md §2).
extension VaultHeader {
    /// What a slot's wrap is bound to: `"puff.slot" | u16 version | u16 flags | 16 space | string id |
    /// u16 slot id | u8 type | blob parameters`, so a wrap moved to another collection, slot, type or
    /// parameter set fails to open. A legacy header's slot keeps ``wrapAssociatedData``.
    public func slotAssociatedData(_ slot: KeySlot) -> [UInt8] {
        guard !isLegacy else { return wrapAssociatedData }
        var writer = ByteWriter(capacity: 128)
        writer.raw(Array("puff.slot".utf8))
        writer.u16(version)
        writer.u16(flags.rawValue)
        writer.raw(space.bytes)
        writer.string(collectionID ?? "")
        writer.u16(slot.id)
        writer.u8(slot.kind.rawValue)
        writer.blob(slot.parameters.encoded())
        return writer.bytes
    }

    /// `master` wrapped for `slot` under `kek` (``SlotKeys/kek(from:kind:)`` of the slot's
    /// credential; the bare Argon2id key for a legacy slot): the bytes for its ``KeySlot/wrappedMaster``.
    public func wrapMaster(_ master: MasterKey, for slot: KeySlot, kek: SecureBytes) throws(CryptoError) -> [UInt8] {
        try master.wrapped(under: kek, associatedData: slotAssociatedData(slot))
    }

    /// The master key `slot` wraps, opened with `kek`. A version 3 header's MAC is still to be
    /// checked with it (``verifyMAC(with:)``) before anything else in the header is trusted.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when the key is wrong or the slot or its binding changed.
    public func unwrapMaster(_ slot: KeySlot, kek: SecureBytes) throws(CryptoError) -> MasterKey {
        try MasterKey.unwrap(slot.wrappedMaster, under: kek, associatedData: slotAssociatedData(slot))
    }

    /// Sets a version 3 header's MAC under `master`; call it after every change, last. Does
    /// nothing to a legacy header (its wrap's associated data covers it).
    public mutating func sealMAC(with master: MasterKey) {
        guard !isLegacy else { return }
        mac = SlotKeys.mac(authenticatedBytes, key: master.subkey(.header))
    }

    /// Checks a version 3 header's MAC under the master key a slot opened; nothing to check for a
    /// legacy header.
    ///
    /// - Throws: ``VaultFormatError/unauthenticated`` when it does not match: the header changed
    ///   without the key (damage, or a thief's edit), which is not a wrong passcode.
    public func verifyMAC(with master: MasterKey) throws(VaultFormatError) {
        try verifyMAC(headerKey: master.subkey(.header))
    }

    /// ``verifyMAC(with:)`` under the master key's header sub-key (`subkey(.header)`), which an
    /// unlocked fleet collection keeps to check a header another machine wrote.
    ///
    /// - Throws: ``VaultFormatError/unauthenticated`` when it does not match.
    public func verifyMAC(headerKey: SecureBytes) throws(VaultFormatError) {
        guard !isLegacy else { return }
        guard SlotKeys.verify(mac, of: authenticatedBytes, key: headerKey) else { throw .unauthenticated }
    }

    /// Adds a slot of `parameters` under the next id, its wrap made with `kek`, and seals the MAC.
    ///
    /// - Returns: the new slot's id.
    /// - Throws: ``CryptoError/invalidParameters`` for a legacy header, a full header, a label
    ///   ``KeySlot/isValidLabel(_:)`` refuses or no id left; ``CryptoError`` from the wrap.
    @discardableResult
    public mutating func addSlot(
        label: String, parameters: KeySlot.Parameters, master: MasterKey, kek: SecureBytes
    ) throws(CryptoError) -> KeySlot.ID {
        guard !isLegacy, slots.count < Self.maximumSlots, KeySlot.isValidLabel(label), nextSlotID < .max else {
            throw .invalidParameters
        }
        var slot = KeySlot(id: nextSlotID, label: label, parameters: parameters, wrappedMaster: [])
        slot.wrappedMaster = try wrapMaster(master, for: slot, kek: kek)
        slots.append(slot)
        nextSlotID += 1
        sealMAC(with: master)
        return slot.id
    }

    /// This legacy header as version 3: the same collection and its one passcode slot (id 1,
    /// "passcode", same salt and cost), re-wrapped under version 3's slot associated data and
    /// the passcode slot's KEK, `SlotKeys.kek(from: typedKey, kind: 1)`, and the MAC sealed.
    ///
    /// `typedKey` is the passcode's Argon2id output, which opens the legacy slot; it is checked
    /// against the slot first, so a wrong one can never produce a header that locks its owner out.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when `typedKey` does not open the slot to `master`;
    ///   ``CryptoError/invalidParameters`` when the header is not legacy.
    public func slotted(master: MasterKey, typedKey: SecureBytes) throws(CryptoError) -> VaultHeader {
        guard isLegacy, slots.count == 1, case .passcode(let typed) = slots[0].parameters else {
            throw .invalidParameters
        }
        guard try unwrapMaster(slots[0], kek: typedKey).isSame(as: master) else { throw .wrongKey }
        var header = VaultHeader(
            flags: flags, policyKind: policyKind, policyMinimumLength: policyMinimumLength, space: space,
            collectionID: collectionID, lockedSearch: lockedSearch, indexKey: indexKey)
        header.nextSlotID = slots[0].id
        let kek = SlotKeys.kek(from: typedKey, kind: KeySlot.Kind.passcode.rawValue)
        try header.addSlot(label: slots[0].label, parameters: .passcode(typed), master: master, kek: kek)
        return header
    }

    /// What an index wrap is bound to: `"puff.index" | u16 version | 16 space`.
    public var indexAssociatedData: [UInt8] {
        var writer = ByteWriter(capacity: 32)
        writer.raw(Array("puff.index".utf8))
        writer.u16(version)
        writer.raw(space.bytes)
        return writer.bytes
    }

    /// `indexKey` wrapped under `master`'s `puffixw_` sub-key, for ``indexWrap`` (storage 2).
    public func wrapIndexKey(_ indexKey: SecureBytes, master: MasterKey) throws(CryptoError) -> [UInt8] {
        try SecretSealer(key: master.subkey(.indexWrap)).seal(indexKey, associatedData: indexAssociatedData)
    }

    /// The index key ``indexWrap`` holds, opened with `master`.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when there is no wrap or it does not open.
    public func unwrapIndexKey(master: MasterKey) throws(CryptoError) -> SecureBytes {
        guard let indexWrap else { throw .wrongKey }
        do {
            return try SecretSealer(key: master.subkey(.indexWrap)).open(indexWrap, associatedData: indexAssociatedData)
        } catch {
            throw .wrongKey
        }
    }
}
