// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

/// The slot keys are keyed BLAKE2b-256 over their labels exactly as docs/design/unlock-slots.md §3
/// writes them: vectors from Python's `hashlib.blake2b(label, key=k, digest_size=32)`, an
/// implementation other than libsodium's.
@Suite struct SlotKeysTests {
    static let key = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x11, count: 32))

    @Test func aKEKIsBLAKE2bOfItsLabelAndTypeUnderTheCredentialsKey() {
        #expect(
            SlotKeys.kek(from: Self.key, kind: 1).unprotectedArray().hex
                == "11ffc031f0928e24ac0531ad513f0c55255510657a234a5777fe9fbbfd8b56d5")
        #expect(
            SlotKeys.kek(from: Self.key, kind: 4).unprotectedArray().hex
                == "528adbae49afed8530cda64c9f39a3ef37fa230b10a27dce52bd1c9a8b75f94a")
    }

    @Test func aRecoveryKeyIsBLAKE2bOfTheSaltUnderThe20ByteCode() {
        let code = SecureBytes(unwipedCopyOf: Array(0..<20))
        #expect(
            SlotKeys.recoveryKey(code: code, salt: [UInt8](repeating: 0x2E, count: 16)).unprotectedArray().hex
                == "a81681e6a19026b6c6cc0a37e13655e9a61ef6b19aaad1692489d78a6e072651")
    }

    @Test func aFIDO2PasscodeKeyNeedsBothTheHMACOutputAndThePasscodeKey() {
        let hmac = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x22, count: 32))
        let typed = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x33, count: 32))
        let both = SlotKeys.fido2PasscodeKey(hmacSecret: hmac, passcodeKey: typed)
        #expect(both.unprotectedArray().hex == "26ddfe24213ef39eafca6ad0105237e43d7a5c41b58de5e586fa791c2e4be772")
        #expect(!both.constantTimeEquals(SlotKeys.fido2PasscodeKey(hmacSecret: hmac, passcodeKey: Self.key)))
    }

    @Test func aMACVerifiesOnlyOverTheSameBytesUnderTheSameKey() {
        let bytes = Array("puff.header".utf8)
        let mac = SlotKeys.mac(bytes, key: Self.key)
        #expect(mac.hex == "200b1a26d539f1b281375932258cca4ef05c71031a23f5cae00a59127ac14441")
        #expect(SlotKeys.verify(mac, of: bytes, key: Self.key))
        #expect(!SlotKeys.verify(mac, of: bytes + [0], key: Self.key))
        #expect(!SlotKeys.verify(Array(mac.dropLast()), of: bytes, key: Self.key))
        #expect(!SlotKeys.verify(mac, of: bytes, key: SlotKeys.kek(from: Self.key, kind: 1)))
    }

    @Test func aKeyOfAnOddLengthIsHashedDownRatherThanTrapping() {
        let short = SecureBytes(unwipedCopyOf: [UInt8](repeating: 1, count: 3))
        let long = SecureBytes(unwipedCopyOf: [UInt8](repeating: 1, count: 65))
        #expect(SlotKeys.kek(from: short, kind: 5).count == 32)
        #expect(SlotKeys.kek(from: long, kind: 5).constantTimeEquals(SlotKeys.kek(from: long, kind: 5)))
        #expect(!SlotKeys.kek(from: short, kind: 5).constantTimeEquals(SlotKeys.kek(from: long, kind: 5)))
    }
}
