// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// The known-answer vector of secret-service.md §5.3, end to end.
@Suite struct DHTransportVectorTests {
    static let prime = [UInt8](
        hex: """
            FFFFFFFF FFFFFFFF C90FDAA2 2168C234 C4C6628B 80DC1CD1 29024E08 8A67CC74
            020BBEA6 3B139B22 514A0879 8E3404DD EF9519B3 CD3A431B 302B0A6D F25F1437
            4FE1356D 6D51C245 E485B576 625E7EC6 F44C42E9 A637ED6B 0BFF5CB6 F406B7ED
            EE386BFB 5A899FA5 AE9F2411 7C4B1FE6 49286651 ECE65381 FFFFFFFF FFFFFFFF
            """
    )
    static let clientExponent: [UInt8] = [0x01, 0x01, 0x4e]
    static let serverExponent: [UInt8] = [0x0f, 0x42, 0x43]
    static let clientPublic = [UInt8](
        hex: """
            410dc56497a0fd32e8a2aaaf15f57c605b843429ae720bb3b9a0cf8d3d121796
            26576f4c316af29560280389c8b2f3478a1dab5377415fd431eee3527b5d9485
            ba0bfea35ed79f60ed4b6264c474edc1581949dc65da7468129debd96a613a5a
            d5b2e7f7efd2feada5e1fc83128b71c202cdcdc334fcbf8deaa5f4545f4fed0d
            """
    )
    static let serverPublic = [UInt8](
        hex: """
            b7a34a52866161f7033102d84ee8533d5d72df2088914132eb0a2f29f7108ff6
            58fadeff437f30a73aba85ef8fab2444caae0a352f77320c8e775b66b7892ab8
            a12b51ca96c479b6396a5c4756ecad92baf6f2dced8b00e03b2e42714b01bd55
            cce9448a5ad5c7fa369fb20a62fa55ba7d9dcf3317fc7f132ed665227f862a35
            """
    )
    static let sharedSecret = [UInt8](
        hex: """
            00b281684e1893dcd77b2dec596a259657e9417ab2b0b7bd4ffdc776ae725bc9
            e0f491a4793a5e83e5aba74c191c49e88fc2641f78223528fabd81c18f3a5907
            888ebc785b0a40a591617e7b85519fc8f6122d305c28ef20e1516014162666f8
            b0439e8202b7ac0316104dcbf47c71a38561b46a63015e39c4226f55e06841db
            """
    )
    static let key = [UInt8](hex: "736340eb717ffaf07f54d0f3d29bcab9")
    static let iv = [UInt8](hex: "000102030405060708090a0b0c0d0e0f")

    @Test func libcryptoPrimeIsTheSecondOakleyGroup() throws {
        let group = try DHGroup()
        #expect(try group.prime.paddedBytes(length: 128) == Self.prime)
    }

    @Test func publicKeysMatchTheVector() throws {
        #expect(try DHTransport.publicKey(privateExponent: Self.clientExponent) == Self.clientPublic)
        #expect(try DHTransport.publicKey(privateExponent: Self.serverExponent) == Self.serverPublic)
    }

    @Test func sharedSecretIsLeftPaddedTo128Bytes() throws {
        let secret = try DHTransport.sharedSecret(
            peerPublicKey: Self.clientPublic,
            privateExponent: Self.serverExponent
        )
        #expect(secret.count == 128)
        #expect(secret.unprotectedArray() == Self.sharedSecret)
    }

    @Test func serverSideAgreementProducesTheVectorKey() throws {
        let (publicKey, key) = try DHTransport.agree(
            peerPublicKey: Self.clientPublic,
            privateExponent: Self.serverExponent
        )
        #expect(publicKey == Self.serverPublic)
        #expect(key.unprotectedArray() == Self.key)
    }

    @Test func clientSideAgreementProducesTheSameKey() throws {
        let (publicKey, key) = try DHTransport.agree(
            peerPublicKey: Self.serverPublic,
            privateExponent: Self.clientExponent
        )
        #expect(publicKey == Self.clientPublic)
        #expect(key.unprotectedArray() == Self.key)
    }

    @Test func unpaddedSharedSecretGivesTheBuggyKey() throws {
        // Documents why padding matters: the minimal 127-byte encoding derives a different key.
        let unpadded = SecureBytes(unwipedCopyOf: Self.sharedSecret.dropFirst())
        let key = try DHTransport.sessionKey(sharedSecret: unpadded)
        #expect(key.unprotectedArray() == [UInt8](hex: "95c0990e1c8e9e9e01ed1a690adbb71e"))
    }

    @Test(arguments: [
        ("s3cret", "c25d4231d403f365b10f6012da42e465"),
        ("", "30ce1c2250e15f2d109d339723370d65"),
    ])
    func encryptionWithTheFixedIVMatchesTheVector(plaintext: String, ciphertextHex: String) throws {
        let key = SecureBytes(unwipedCopyOf: Self.key)
        let ciphertext = try DHTransport.encrypt(SecureBytes(unwipedCopyOf: plaintext.utf8), key: key, iv: Self.iv)
        #expect(ciphertext == [UInt8](hex: ciphertextHex))
        let decrypted = try DHTransport.decrypt(ciphertext: ciphertext, iv: Self.iv, key: key)
        #expect(decrypted.unprotectedArray() == Array(plaintext.utf8))
    }
}
