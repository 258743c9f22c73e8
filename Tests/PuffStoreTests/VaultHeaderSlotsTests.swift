// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// The slotted header, version 3 (docs/design/unlock-slots.md §2): slots of every type survive
/// encoding, each wrap opens only where it was made, and the MAC covers the rest.
@Suite struct VaultHeaderSlotsTests {
    let master = MasterKey()

    @Test(arguments: KeySlot.Kind.allCases)
    func aHeaderWithOneSlotOfEachTypeReadsBackAsItselfAndOpens(kind: KeySlot.Kind) throws {
        let header = try SlotSamples.header([kind], master: master)
        let read = try VaultHeader(decoding: header.encoded())
        #expect(read == header)
        #expect(read.version == 3 && !read.isLegacy)
        #expect(read.slots.map(\.kind) == [kind])
        #expect(read.slots[0].parameters == SlotSamples.parameters(kind))
        #expect(read.slots[0].label == "my \(kind)")
        #expect(read.encoded() == header.encoded())
        #expect(try read.unwrapMaster(read.slots[0], kek: SlotSamples.kek(kind)).isSame(as: master))
        try read.verifyMAC(with: master)
    }

    @Test func aHeaderWithAllSevenTypesKeepsTheirOrderIdsAndKeys() throws {
        let header = try SlotSamples.header(master: master)
        let read = try VaultHeader(decoding: header.encoded())
        #expect(read == header)
        #expect(read.slots.map(\.kind) == KeySlot.Kind.allCases)
        #expect(read.slots.map(\.id) == [1, 2, 3, 4, 5, 6, 7])
        #expect(read.nextSlotID == 8)
        #expect(SlotSamples.everySlotOpens(read, to: master))
        try read.verifyMAC(with: master)
        // A KEK of another type opens nothing: the type byte is in the KEK and in the AD.
        #expect(throws: CryptoError.wrongKey) { try read.unwrapMaster(read.slots[0], kek: SlotSamples.kek(.login)) }
    }

    @Test func aTPMSealedIndexKeyReadsBackAndItsWrapOpensWithTheMasterKey() throws {
        let header = try SlotSamples.header([.passcode, .tpm2], master: master, storage: .tpm2)
        let read = try VaultHeader(decoding: header.encoded())
        #expect(read == header)
        #expect(read.indexStorage == .tpm2 && read.indexKey == nil)
        #expect(read.indexSeal == header.indexSeal)
        #expect(try read.unwrapIndexKey(master: master).constantTimeEquals(SlotSamples.indexKey))
        #expect(throws: CryptoError.wrongKey) { try read.unwrapIndexKey(master: MasterKey()) }
        try read.verifyMAC(with: master)
    }

    @Test func aWrapMovedToAnotherSlotIdTypeOrCollectionDoesNotOpen() throws {
        let header = try SlotSamples.header([.passcode, .login], master: master)
        let passcode = header.slots[0]
        let kek = SlotSamples.kek(.passcode)
        #expect(try header.unwrapMaster(passcode, kek: kek).isSame(as: master))

        var otherID = passcode
        otherID.id = 9
        #expect(throws: CryptoError.wrongKey) { try header.unwrapMaster(otherID, kek: kek) }
        // The login slot's place, type and parameters, carrying the passcode slot's wrap.
        var otherType = header.slots[1]
        otherType.wrappedMaster = passcode.wrappedMaster
        #expect(throws: CryptoError.wrongKey) { try header.unwrapMaster(otherType, kek: kek) }
        var otherSalt = passcode
        otherSalt.parameters = .passcode(KeySlot.Typed(kdf: .interactive, salt: [UInt8](repeating: 8, count: 16)))
        #expect(throws: CryptoError.wrongKey) { try header.unwrapMaster(otherSalt, kek: kek) }

        var elsewhere = try SlotSamples.header([.passcode], master: master, collectionID: "Work")
        elsewhere.slots[0].wrappedMaster = passcode.wrappedMaster
        #expect(throws: CryptoError.wrongKey) { try elsewhere.unwrapMaster(elsewhere.slots[0], kek: kek) }
        var otherSpace = header
        otherSpace.space = SpaceID(bytes: [UInt8](repeating: 0xEE, count: 16))!
        #expect(throws: CryptoError.wrongKey) { try otherSpace.unwrapMaster(passcode, kek: kek) }
    }

    @Test func aRelabelOrADroppedSlotWithoutTheMasterKeyFailsTheMACNotTheUnwrap() throws {
        let header = try SlotSamples.header([.passcode, .recovery], master: master)
        var relabelled = header
        relabelled.slots[1].label = "attacker's"
        var dropped = header
        dropped.slots.removeLast()
        for changed in [relabelled, dropped] {
            let read = try VaultHeader(decoding: changed.encoded())
            #expect(try read.unwrapMaster(read.slots[0], kek: SlotSamples.kek(.passcode)).isSame(as: master))
            #expect(throws: VaultFormatError.unauthenticated) { try read.verifyMAC(with: master) }
        }
        #expect(throws: VaultFormatError.unauthenticated) { try header.verifyMAC(with: MasterKey()) }
    }

    @Test func aLegacyHeaderBecomesVersion3ThatOpensWithThePasscodeKEKAndVerifies() throws {
        let typedKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x77, count: 32))
        var legacy = VaultHeader(
            flags: [], kdf: .interactive, salt: SlotSamples.typed.salt, policyKind: 1, policyMinimumLength: 8,
            space: SlotSamples.space, indexKey: [UInt8](repeating: 0x1D, count: 32), collectionID: "login")
        legacy.slots[0].wrappedMaster = try legacy.wrapMaster(master, for: legacy.slots[0], kek: typedKey)
        #expect(legacy.isLegacy && legacy.version == 2)

        let slotted = try legacy.slotted(master: master, typedKey: typedKey)
        let read = try VaultHeader(decoding: slotted.encoded())
        #expect(read.version == 3 && !read.isLegacy)
        #expect(read.slots.map(\.id) == [1] && read.nextSlotID == 2 && read.slots[0].label == "passcode")
        #expect(read.slots[0].parameters == .passcode(SlotSamples.typed))
        #expect(read.indexKey == legacy.indexKey && read.lockedSearch == .always && read.collectionID == "login")
        #expect(read.policyKind == 1 && read.policyMinimumLength == 8)
        let kek = SlotKeys.kek(from: typedKey, kind: KeySlot.Kind.passcode.rawValue)
        #expect(try read.unwrapMaster(read.slots[0], kek: kek).isSame(as: master))
        try read.verifyMAC(with: master)
        // The bare Argon2id key no longer opens it: version 3 separates KEKs by type.
        #expect(throws: CryptoError.wrongKey) { try read.unwrapMaster(read.slots[0], kek: typedKey) }
    }

    @Test func slottingRefusesAKeyThatDoesNotOpenTheLegacySlotAndAVersion3Header() throws {
        var legacy = VaultHeader(
            flags: [], kdf: .interactive, salt: SlotSamples.typed.salt, space: SlotSamples.space, indexKey: nil,
            collectionID: "Work")
        let typedKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x77, count: 32))
        legacy.slots[0].wrappedMaster = try legacy.wrapMaster(master, for: legacy.slots[0], kek: typedKey)
        #expect(throws: CryptoError.wrongKey) {
            try legacy.slotted(
                master: master, typedKey: SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x78, count: 32)))
        }
        #expect(throws: CryptoError.wrongKey) { try legacy.slotted(master: MasterKey(), typedKey: typedKey) }
        let slotted = try legacy.slotted(master: master, typedKey: typedKey)
        #expect(throws: CryptoError.invalidParameters) { try slotted.slotted(master: master, typedKey: typedKey) }
    }

    @Test func aHeaderChangedAfterSealingVerifiesOnlyWhenSealedAgain() throws {
        var header = try SlotSamples.header([.passcode], master: master)
        header.slots[0].label = "renamed"
        let read = try VaultHeader(decoding: header.encoded())
        #expect(throws: VaultFormatError.unauthenticated) { try read.verifyMAC(with: master) }
        header.sealMAC(with: master)
        try VaultHeader(decoding: header.encoded()).verifyMAC(with: master)
    }
}
