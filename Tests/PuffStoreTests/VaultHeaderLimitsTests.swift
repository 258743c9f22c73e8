// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// A planted or damaged slotted header outside docs/design/unlock-slots.md §2 "Limits" is refused
/// with the error that names what is wrong, never read in part and never a trap.
@Suite struct VaultHeaderLimitsTests {
    let master = MasterKey()

    /// The `what` of the malformed error decoding `bytes` throws (nil, recorded, otherwise).
    func refusal(_ bytes: [UInt8]) -> String? {
        SlotSamples.malformed(bytes)?.what
    }

    /// The offset of the last slot's first byte in `header`'s encoding.
    func lastSlotOffset(_ header: VaultHeader) -> Int {
        let slot = header.slots[header.slots.count - 1]
        let length =
            2 + 1 + 1 + 4 + slot.label.utf8.count + 4 + slot.parameters.encoded().count + 4 + slot.wrappedMaster.count
        return header.encoded().count - VaultHeader.macBytes - length
    }

    @Test func noSlotsOrMoreThanSixteenAreRefused() throws {
        var empty = try SlotSamples.header([], master: master)
        empty.sealMAC(with: master)
        #expect(refusal(empty.encoded()) == "slot count")
        var full = try SlotSamples.header(Array(repeating: .recovery, count: 16), master: master)
        _ = try VaultHeader(decoding: full.encoded())
        full.slots.append(full.slots[0])
        full.slots[16].id = full.nextSlotID
        full.nextSlotID += 1
        #expect(refusal(full.encoded()) == "slot count")
    }

    @Test func slotIdsTwiceOrNotBelowTheNextIdAreRefused() throws {
        var twice = try SlotSamples.header([.passcode, .recovery], master: master)
        twice.slots[1].id = twice.slots[0].id
        #expect(refusal(twice.encoded()) == "slot ids")
        var ahead = try SlotSamples.header([.passcode], master: master)
        ahead.nextSlotID = ahead.slots[0].id
        #expect(refusal(ahead.encoded()) == "slot ids")
    }

    @Test(arguments: ["", String(repeating: "é", count: 33), "tab\there", "bell\u{7}", "c1\u{85}"])
    func aLabelEmptyTooLongOrWithControlCharactersIsRefused(label: String) throws {
        #expect(!KeySlot.isValidLabel(label))
        var header = try SlotSamples.header([.passcode], master: master)
        header.slots[0].label = label
        #expect(refusal(header.encoded()) == "slot label")
    }

    @Test func sixtyFourBytesOfUnicodeMakeALabel() throws {
        var header = try SlotSamples.header([.passcode], master: master)
        header.slots[0].label = String(repeating: "é", count: 32)
        #expect(try VaultHeader(decoding: header.encoded()).slots[0].label.utf8.count == 64)
    }

    @Test func aSlotTypeThisVersionDoesNotKnowRefusesTheWholeHeader() throws {
        let header = try SlotSamples.header([.passcode, .recovery], master: master)
        var bytes = header.encoded()
        let offset = lastSlotOffset(header)
        #expect(bytes[offset + 2] == KeySlot.Kind.recovery.rawValue)
        bytes[offset + 2] = 8
        #expect(throws: VaultFormatError.unsupportedSlotType(8)) { try VaultHeader(decoding: bytes) }
        bytes[offset + 2] = 0
        #expect(throws: VaultFormatError.unsupportedSlotType(0)) { try VaultHeader(decoding: bytes) }
    }

    @Test func reservedSlotFlagsAreRefused() throws {
        let header = try SlotSamples.header([.passcode], master: master)
        var bytes = header.encoded()
        bytes[lastSlotOffset(header) + 3] = 1
        #expect(refusal(bytes) == "slot flags")
    }

    @Test func oversizedParametersAndWrapsAreRefused() throws {
        var big = try SlotSamples.header([.tpm2], master: master)
        big.slots[0].parameters = .tpm2(KeySlot.TPM2(pcrMask: 0, blob: [UInt8](repeating: 1, count: 2048)))
        #expect(refusal(big.encoded()) == "slot parameters")
        var wrap = try SlotSamples.header([.passcode], master: master)
        wrap.slots[0].wrappedMaster = [UInt8](repeating: 1, count: 257)
        #expect(refusal(wrap.encoded()) == "wrapped master")
    }

    @Test(arguments: [
        (KeySlot.Parameters.tpm2(KeySlot.TPM2(pcrMask: 1 << 24, blob: [1])), "PCR mask"),
        (.tpm2(KeySlot.TPM2(pcrMask: 0, template: 2, blob: [1])), "TPM template"),
        (.tpm2(KeySlot.TPM2(pcrMask: 0, blob: [])), "TPM blob"),
        (
            .fido2(
                KeySlot.FIDO2(
                    relyingParty: "io.puff.vault", credentialID: [1], salt: [UInt8](repeating: 0, count: 32),
                    flags: .init(rawValue: 8))), "FIDO2 flags"
        ),
        (
            .fido2(
                KeySlot.FIDO2(relyingParty: "", credentialID: [1], salt: [UInt8](repeating: 0, count: 32), flags: [])),
            "relying party"
        ),
        (
            .fido2(
                KeySlot.FIDO2(
                    relyingParty: "io.puff.vault", credentialID: [], salt: [UInt8](repeating: 0, count: 32), flags: [])),
            "credential id"
        ),
        (
            .fido2(
                KeySlot.FIDO2(
                    relyingParty: "io.puff.vault", credentialID: [1], salt: [UInt8](repeating: 0, count: 31), flags: [])
            ), "FIDO2 flags"
        ),
        (.recovery(salt: [UInt8](repeating: 0, count: 17)), "slot parameters"),
        (.passcode(KeySlot.Typed(kdf: .interactive, salt: [UInt8](repeating: 0, count: 15))), "salt"),
    ])
    func parametersOutsideTheirTypesLimitsAreRefused(parameters: KeySlot.Parameters, what: String) throws {
        var header = try SlotSamples.header([parameters.kind], master: master)
        header.slots[0].parameters = parameters
        #expect(refusal(header.encoded()) == what)
    }

    @Test func aKDFCostOutsideWhatPuffAcceptsIsRefused() throws {
        let header = try SlotSamples.header([.passcode], master: master)
        var bytes = header.encoded()
        // Parameters start after id, type, flags, label and the blob's length: operations first.
        let operations = lastSlotOffset(header) + 4 + 4 + header.slots[0].label.utf8.count + 4
        #expect(bytes[operations] == 2)
        bytes[operations] = 1
        #expect(refusal(bytes) == "KDF parameters")
    }

    @Test func aHiddenCollectionHoldsExactlyOnePasscodeSlot() throws {
        let hidden: VaultHeader.Flags = [.private, .hidden]
        let one = try SlotSamples.header([.passcode], master: master, storage: .none, flags: hidden, collectionID: nil)
        #expect(try VaultHeader(decoding: one.encoded()) == one)
        for kinds in [[KeySlot.Kind.passcode, .recovery], [.tpm2], [.login]] {
            let header = try SlotSamples.header(kinds, master: master, storage: .none, flags: hidden, collectionID: nil)
            #expect(refusal(header.encoded()) == "slots of a hidden collection")
        }
    }

    @Test(arguments: [VaultHeader.IndexStorage.clear, .tpm2])
    func aPrivateCollectionKeepsNoIndexKeyInAnyForm(storage: VaultHeader.IndexStorage) throws {
        var header = try SlotSamples.header([.passcode], master: master, storage: storage, flags: .private)
        header.lockedSearch = .never
        #expect(refusal(header.encoded()) == "flags contradict the header's fields")
        header.lockedSearch = .always
        #expect(refusal(header.encoded()) == "flags contradict the header's fields")
    }

    @Test func anIndexStorageByteThatDisagreesWithTheFieldsIsRefused() throws {
        var half = try SlotSamples.header([.passcode], master: master, storage: .tpm2)
        half.indexSeal = nil
        #expect(refusal(half.encoded()) == "index storage")
        let clear = try SlotSamples.header([.passcode], master: master, storage: .clear)
        var bytes = clear.encoded()
        // "puff.header" 11, version 2, flags 2, policy 2, space 16, locked search 1.
        #expect(bytes[34] == VaultHeader.IndexStorage.clear.rawValue)
        bytes[34] = VaultHeader.IndexStorage.tpm2.rawValue
        #expect(refusal(bytes) == "index storage")
        bytes[34] = 3
        #expect(refusal(bytes) == "index storage")
    }

    @Test func aVersionAfterThreeIsNewerThanThisReads() throws {
        var bytes = try SlotSamples.header([.passcode], master: master).encoded()
        bytes[11] = 4
        #expect(throws: VaultFormatError.unsupportedVersion(4)) { try VaultHeader(decoding: bytes) }
    }
}
