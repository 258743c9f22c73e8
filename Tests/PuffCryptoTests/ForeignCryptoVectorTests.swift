// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// The libcrypto primitives other stores' formats need, against published known answers
/// (NIST SP 800-38A, RFC 4231, RFC 7914, FIPS 180), so a reader built on them reads real files.
@Suite struct ForeignCryptoVectorTests {
    let iv = [UInt8](hex: "000102030405060708090a0b0c0d0e0f")
    let block = [UInt8](hex: "6bc1bee22e409f96e93d7e117393172a")

    @Test func aes128CBCWithoutPaddingMatchesNISTF21() throws {
        let key = SecureBytes(unwipedCopyOf: [UInt8](hex: "2b7e151628aed2a6abf7158809cf4f3c"))
        let ciphertext = try AESCBC.encrypt(SecureBytes(unwipedCopyOf: block), key: key, iv: iv, padding: .none)
        #expect(ciphertext.hex == "7649abac8119b246cee98e9b12e9197d")
        #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv, padding: .none).unprotectedArray() == block)
    }

    @Test func aes256CBCWithoutPaddingMatchesNISTF25() throws {
        let key = SecureBytes(
            unwipedCopyOf: [UInt8](hex: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"))
        let ciphertext = try AESCBC.encrypt(SecureBytes(unwipedCopyOf: block), key: key, iv: iv, padding: .none)
        #expect(ciphertext.hex == "f58c4c04d6e5f1ba779eabfb5f7bfbd6")
    }

    @Test func unpaddedCBCRefusesAPlaintextThatIsNotWholeBlocks() {
        let key = SecureBytes(unwipedCopyOf: [UInt8](repeating: 1, count: 16))
        #expect(throws: CryptoError.invalidParameters) {
            try AESCBC.encrypt(SecureBytes(unwipedCopyOf: [1, 2, 3]), key: key, iv: iv, padding: .none)
        }
    }

    @Test func aKeyThatIsNeither16Nor32BytesIsRefused() {
        let key = SecureBytes(unwipedCopyOf: [UInt8](repeating: 1, count: 24))
        #expect(throws: CryptoError.invalidParameters) {
            try AESCBC.encrypt(SecureBytes(unwipedCopyOf: block), key: key, iv: iv, padding: .pkcs7)
        }
    }

    @Test func digestsMatchTheirStandardAnswers() throws {
        #expect(try ForeignDigest.hash(.md5, []).hex == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(
            try ForeignDigest.hash(.sha256, Array("abc".utf8)).hex
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            try ForeignDigest.hash(.sha512, Array("abc".utf8)).hex
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test func aSecretDigestOfPartsEqualsTheDigestOfTheirConcatenation() throws {
        let parts = [SecureBytes(unwipedCopyOf: Array("ab".utf8)), SecureBytes(unwipedCopyOf: Array("c".utf8))]
        #expect(
            try ForeignDigest.hash(.sha256, secret: parts).unprotectedArray().hex
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hmacSHA256MatchesRFC4231TestCase2() throws {
        let mac = try ForeignDigest.hmac(
            .sha256, key: SecureBytes(unwipedCopyOf: Array("Jefe".utf8)),
            [Array("what do ya want ".utf8), Array("for nothing?".utf8)])
        #expect(mac.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func pbkdf2SHA256MatchesRFC7914() throws {
        let key = try ForeignDigest.pbkdf2(
            .sha256, passcode: SecureBytes(unwipedCopyOf: Array("passwd".utf8)), salt: Array("salt".utf8),
            iterations: 1, length: 64)
        #expect(
            key.unprotectedArray().hex
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }
}
