// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// SecureBytes, SecureRandom and CryptoError: the properties the rest of Puff relies on.
@Suite struct SecureBytesTests {
    @Test func constantTimeEqualsComparesContentAndLength() {
        let secret = SecureBytes(unwipedCopyOf: "hunter2".utf8)
        #expect(secret.constantTimeEquals(SecureBytes(unwipedCopyOf: "hunter2".utf8)))
        #expect(!secret.constantTimeEquals(SecureBytes(unwipedCopyOf: "hunter3".utf8)))
        #expect(!secret.constantTimeEquals(SecureBytes(unwipedCopyOf: "hunter".utf8)))
        #expect(!secret.constantTimeEquals(SecureBytes.empty))
        #expect(SecureBytes.empty.constantTimeEquals(SecureBytes(unwipedCopyOf: [UInt8]())))
    }

    @Test(arguments: [
        ([UInt8](), true),
        (Array("plain ascii".utf8), true),
        (Array("héllo wörld ✓ 🔑".utf8), true),
        ([0xff], false),
        ([0xc3], false),
        ([0xed, 0xa0, 0x80], false),
        ([0x61, 0x80, 0x62], false),
    ])
    func isValidUTF8RecognisesWellFormedText(bytes: [UInt8], isValid: Bool) {
        #expect(SecureBytes(unwipedCopyOf: bytes).isValidUTF8 == isValid)
    }

    @Test func descriptionNeverShowsTheContent() {
        let secret = SecureBytes(unwipedCopyOf: "s3cret-Passw0rd".utf8)
        for text in ["\(secret)", String(describing: secret), String(reflecting: secret), secret.debugDescription] {
            #expect(!text.contains("s3cret"))
            #expect(!text.contains("73 33"))
            #expect(!text.contains("7333"))
            #expect(text == "<15 secret bytes>")
        }
    }

    @Test func initialiserCopiesAndUnprotectedArrayReturnsTheBytes() {
        let bytes: [UInt8] = [0, 1, 2, 254, 255]
        let secure = bytes.withUnsafeBytes { SecureBytes(copying: $0) }
        #expect(secure.count == 5)
        #expect(!secure.isEmpty)
        #expect(secure.unprotectedArray() == bytes)
        #expect(SecureBytes.empty.isEmpty)
    }

    @Test func throwingFillPropagatesItsError() {
        #expect(throws: CryptoError.randomFailure) {
            _ = try SecureBytes(count: 8) { (_: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void in
                throw .randomFailure
            }
        }
    }

    @Test func secureRandomReturnsTheRequestedNumberOfFreshBytes() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test func cryptoErrorDescriptionsAreShortAndFixed() {
        let errors: [CryptoError] = [
            .invalidPublicKey, .invalidParameters, .invalidCiphertext, .randomFailure, .library("BN_dup failed"),
        ]
        for error in errors {
            #expect(!String(describing: error).isEmpty)
        }
        #expect(CryptoError.openSSL("EVP_KDF_derive") == .library("EVP_KDF_derive failed"))
    }
}
