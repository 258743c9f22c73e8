// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// AES-128-CBC with PKCS#7: input validation, padding checks and round trips.
@Suite struct DHTransportCipherTests {
    typealias Vector = DHTransportVectorTests

    let key = SecureBytes(unwipedCopyOf: Vector.key)

    /// CBC ciphertext of `blocks` with no padding added, so the last block's own bytes are what
    /// decryption reads as padding.
    ///
    /// CBC is sequential: encrypting whole blocks with padding on yields their unpadded ciphertext
    /// followed by one extra block for the padding, which is dropped here.
    func unpaddedCiphertext(_ blocks: [UInt8]) throws -> [UInt8] {
        precondition(blocks.count % 16 == 0, "whole blocks only")
        let padded = try DHTransport.encrypt(SecureBytes(unwipedCopyOf: blocks), key: key, iv: Vector.iv)
        return Array(padded.dropLast(16))
    }

    @Test func fullPaddingBlockDecryptsToTheBytesBeforeIt() throws {
        // Positive control for the helper above: sixteen 0x10 bytes are one valid padding block.
        let body: [UInt8] = Array(0..<16)
        let ciphertext = try unpaddedCiphertext(body + [UInt8](repeating: 0x10, count: 16))
        let plaintext = try DHTransport.decrypt(ciphertext: ciphertext, iv: Vector.iv, key: key)
        #expect(plaintext.unprotectedArray() == body)
    }

    @Test(arguments: [
        ("pad byte 0", [UInt8](repeating: 0x41, count: 15) + [0x00]),
        ("pad byte 17", [UInt8](repeating: 0x11, count: 16)),
        ("pad byte 255", [UInt8](repeating: 0xff, count: 16)),
        ("inconsistent pad bytes", [UInt8](repeating: 0x41, count: 13) + [0x01, 0x03, 0x03]),
        ("inconsistent full block", [0x0f] + [UInt8](repeating: 0x10, count: 15)),
    ])
    func decryptionRejectsBadPadding(_ name: String, _ lastBlock: [UInt8]) throws {
        let ciphertext = try unpaddedCiphertext([UInt8](repeating: 0x61, count: 16) + lastBlock)
        #expect(throws: CryptoError.invalidCiphertext) {
            _ = try DHTransport.decrypt(ciphertext: ciphertext, iv: Vector.iv, key: key)
        }
    }

    @Test(arguments: [0, 15, 17, 32])
    func decryptionRejectsAnIVThatIsNot16Bytes(length: Int) {
        let ciphertext = [UInt8](hex: "c25d4231d403f365b10f6012da42e465")
        #expect(throws: CryptoError.invalidParameters) {
            _ = try DHTransport.decrypt(ciphertext: ciphertext, iv: [UInt8](repeating: 0, count: length), key: key)
        }
    }

    @Test(arguments: [0, 1, 15, 17, 31, 33])
    func decryptionRejectsCiphertextThatIsNotWholeBlocks(length: Int) {
        #expect(throws: CryptoError.invalidCiphertext) {
            _ = try DHTransport.decrypt(ciphertext: [UInt8](repeating: 0x5a, count: length), iv: Vector.iv, key: key)
        }
    }

    @Test func decryptionWithTheWrongKeyFails() {
        // Checked to end in bad padding under this key; a wrong key can in principle (about 1 in
        // 256) yield valid-looking padding, so the case is fixed rather than random.
        let wrongKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0, count: 16))
        let ciphertext = [UInt8](hex: "c25d4231d403f365b10f6012da42e465")
        #expect(throws: CryptoError.invalidCiphertext) {
            _ = try DHTransport.decrypt(ciphertext: ciphertext, iv: Vector.iv, key: wrongKey)
        }
    }

    @Test func keysThatAreNot16BytesAreRejected() {
        let shortKey = SecureBytes(unwipedCopyOf: [UInt8](repeating: 1, count: 15))
        #expect(throws: CryptoError.invalidParameters) {
            _ = try DHTransport.encrypt(SecureBytes(unwipedCopyOf: "x".utf8), key: shortKey)
        }
        #expect(throws: CryptoError.invalidParameters) {
            _ = try DHTransport.decrypt(ciphertext: [UInt8](repeating: 0, count: 16), iv: Vector.iv, key: shortKey)
        }
    }

    @Test func encryptionUsesAFreshIVEachTime() throws {
        let secret = SecureBytes(unwipedCopyOf: "same secret".utf8)
        let first = try DHTransport.encrypt(secret, key: key)
        let second = try DHTransport.encrypt(secret, key: key)
        #expect(first.iv.count == 16)
        #expect(second.iv.count == 16)
        #expect(first.iv != second.iv)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test(arguments: [(0, 16), (1, 16), (15, 16), (16, 32), (17, 32)])
    func ciphertextIsPaddedToTheNextWholeBlock(plaintextLength: Int, ciphertextLength: Int) throws {
        let plaintext = SecureBytes(unwipedCopyOf: [UInt8](repeating: 0x33, count: plaintextLength))
        let sealed = try DHTransport.encrypt(plaintext, key: key)
        #expect(sealed.ciphertext.count == ciphertextLength)
        let opened = try DHTransport.decrypt(ciphertext: sealed.ciphertext, iv: sealed.iv, key: key)
        #expect(opened.constantTimeEquals(plaintext))
    }

    @Test(arguments: [64 * 1024, 1024 * 1024])
    func largeBinaryPlaintextsRoundTrip(size: Int) throws {
        let plaintext = SecureBytes(unwipedCopyOf: SecureRandom.bytes(size))
        let sealed = try DHTransport.encrypt(plaintext, key: key)
        #expect(sealed.ciphertext.count == size + 16)
        let opened = try DHTransport.decrypt(ciphertext: sealed.ciphertext, iv: sealed.iv, key: key)
        #expect(opened.count == size)
        #expect(opened.constantTimeEquals(plaintext))
    }
}
