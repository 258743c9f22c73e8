// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffStore
import Testing

/// The golden vaults' headers (Tests/PuffServiceTests/Fixtures, versions 1 and 2) read as one
/// legacy passcode slot that opens with the golden passcodes, and encode back to the same bytes,
/// so a vault people already have keeps opening and is never rewritten by reading it.
@Suite struct GoldenHeaderTests {
    /// The golden passcodes by collection id (GoldenVault.swift in PuffServiceTests; test data).
    static let passcodes = [
        "login": "golden-login-passcode", "Work": "golden-work-passcode", "Diary": "golden-diary-passcode",
    ]
    static let hiddenPasscode = "golden-hidden-passcode"

    static func headers(version: UInt16, file: String = #filePath) throws -> [(name: String, bytes: [UInt8])] {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PuffServiceTests/Fixtures/vault-v\(version)").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".header") }
        return try names.sorted().map { name in
            let file = Array(try #require(FileManager.default.contents(atPath: "\(folder)/\(name)")))
            return (name, try ChecksummedFile.decode(file, magic: ChecksummedFile.headerMagic, name: name))
        }
    }

    @Test(arguments: [UInt16(1), 2])
    func everyGoldenHeaderIsOneLegacyPasscodeSlotThatOpensAndEncodesBackByteForByte(version: UInt16) throws {
        let headers = try Self.headers(version: version)
        #expect(headers.count == 4, "login, Work, Diary and the hidden collection")
        for (name, bytes) in headers {
            let header = try VaultHeader(decoding: bytes)
            #expect(header.version == version && header.isLegacy, "\(name)")
            #expect(header.encoded() == bytes, "\(name) encodes back to its bytes")
            #expect(header.slots.count == 1 && header.nextSlotID == 2, "\(name)")
            let slot = try #require(header.slots.first)
            #expect(slot.id == 1 && slot.label == "passcode" && slot.kind == .passcode, "\(name)")
            let typed = try #require(slot.parameters.typed)
            #expect(typed.kdf == .interactive && typed.salt.count == PasscodeKDF.saltBytes, "\(name)")
            #expect(header.slotAssociatedData(slot) == header.wrapAssociatedData, "\(name)")

            let passcode = header.collectionID.map { Self.passcodes[$0] } ?? Self.hiddenPasscode
            let key = try PasscodeKDF.key(
                for: SecureBytes(unwipedCopyOf: Array(try #require(passcode, "\(name)").utf8)), salt: typed.salt,
                parameters: typed.kdf)
            let master = try header.unwrapMaster(slot, kek: key)
            try header.verifyMAC(with: master)
            // Its own KEK of version 3 does not open it: a legacy slot keeps the bare Argon2id key.
            #expect(throws: CryptoError.wrongKey, "\(name)") {
                try header.unwrapMaster(slot, kek: SlotKeys.kek(from: key, kind: 1))
            }
            let slotted = try header.slotted(master: master, typedKey: key)
            let reread = try VaultHeader(decoding: slotted.encoded())
            #expect(try reread.unwrapMaster(reread.slots[0], kek: SlotKeys.kek(from: key, kind: 1)).isSame(as: master))
            try reread.verifyMAC(with: master)
        }
    }
}
