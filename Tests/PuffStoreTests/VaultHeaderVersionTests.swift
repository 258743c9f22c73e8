// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

/// Header format 2 carries the locked-search mode (issue 24 item 6); format 1 headers still read.
@Suite struct VaultHeaderVersionTests {
    static let salt = [UInt8](repeating: 7, count: PasscodeKDF.saltBytes)
    static let space = SpaceID(bytes: [UInt8](repeating: 0xA5, count: 16))!

    static func header(_ mode: VaultHeader.LockedSearch, flags: VaultHeader.Flags = []) -> VaultHeader {
        VaultHeader(
            flags: flags, kdf: .interactive, salt: salt, space: space,
            indexKey: mode == .always ? [UInt8](repeating: 0x1D, count: 32) : nil,
            collectionID: flags.contains(.hidden) ? nil : "login", wrappedKey: [1, 2, 3], lockedSearch: mode)
    }

    @Test(arguments: VaultHeader.LockedSearch.allCases)
    func aVersion2HeaderKeepsItsModeThroughEncoding(mode: VaultHeader.LockedSearch) throws {
        let header = Self.header(mode)
        #expect(header.version == 2)
        let read = try VaultHeader(decoding: header.encoded())
        #expect(read == header)
        #expect(read.lockedSearch == mode)
        #expect((read.indexKey != nil) == (mode == .always))
    }

    @Test func aVersion1HeaderReadsAsAlwaysOrAsNeverWhenPrivate() throws {
        var visible = Self.header(.always)
        visible.version = 1
        let read = try VaultHeader(decoding: visible.encoded())
        #expect(read.version == 1)
        #expect(read.lockedSearch == .always)
        // Version 1 has no mode byte: its bytes are exactly the old layout, 1 shorter.
        #expect(visible.encoded().count == Self.header(.always).encoded().count - 1)

        var secret = Self.header(.never, flags: .private)
        secret.version = 1
        #expect(try VaultHeader(decoding: secret.encoded()).lockedSearch == .never)
    }

    @Test func theModeIsBoundIntoTheWrapSoFlippingItFailsThePasscode() throws {
        let passcodeKey = try PasscodeKDF.key(
            for: SecureBytes(unwipedCopyOf: "right".utf8), salt: Self.salt, parameters: .interactive)
        let master = MasterKey()
        var header = Self.header(.afterUnlock)
        header.slots[0].wrappedMaster = try header.wrapMaster(master, for: header.slots[0], kek: passcodeKey)
        var flipped = try VaultHeader(decoding: header.encoded())
        #expect(try flipped.unwrapMaster(flipped.slots[0], kek: passcodeKey).isSame(as: master))
        flipped.lockedSearch = .never
        #expect(throws: CryptoError.wrongKey) { try flipped.unwrapMaster(flipped.slots[0], kek: passcodeKey) }
    }

    @Test func aModeByteThisVersionDoesNotKnowIsMalformed() {
        var bytes = Self.header(.never).encoded()
        // "puff.header" 11, version 2, flags 2, KDF 16, salt 4+16, policy 2, space 16.
        let offset = 11 + 2 + 2 + 16 + 20 + 2 + 16
        #expect(bytes[offset] == 2)
        bytes[offset] = 3
        #expect(throws: VaultFormatError.malformed(offset: UInt64(offset), what: "locked search")) {
            try VaultHeader(decoding: bytes)
        }
    }

    @Test(arguments: [
        (VaultHeader.LockedSearch.afterUnlock, true, VaultHeader.Flags()),
        (.never, true, VaultHeader.Flags()),
        (.always, false, VaultHeader.Flags()),
        (.always, false, VaultHeader.Flags.private),
        (.afterUnlock, false, VaultHeader.Flags.private),
    ])
    func aModeThatContradictsTheKeyOrTheFlagsIsMalformed(
        mode: VaultHeader.LockedSearch, hasKey: Bool, flags: VaultHeader.Flags
    ) {
        var header = Self.header(.never, flags: flags)
        header.lockedSearch = mode
        header.indexKey = hasKey ? [UInt8](repeating: 0x1D, count: 32) : nil
        #expect(throws: VaultFormatError.malformed(offset: 0, what: "flags contradict the header's fields")) {
            try VaultHeader(decoding: header.encoded())
        }
    }
}
