// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffCrypto

/// Key agreement: peer-key validation and a round trip against a client played by the test.
@Suite struct DHTransportAgreementTests {
    typealias Vector = DHTransportVectorTests

    /// p - 1, big-endian.
    static let primeMinusOne: [UInt8] = {
        var bytes = Vector.prime
        bytes[bytes.count - 1] -= 1
        return bytes
    }()

    /// p + 1, big-endian (p ends in 64 one bits, so the carry runs through eight bytes).
    static let primePlusOne: [UInt8] = {
        var bytes = Vector.prime
        for index in (bytes.count - 8)..<bytes.count { bytes[index] = 0x00 }
        bytes[bytes.count - 9] += 1
        return bytes
    }()

    @Test func serverAndTestClientAgreeOnAKeyAndCanExchangeSecrets() throws {
        // The client picks a small fixed exponent; the server picks a random one through the public API.
        let clientExponent: [UInt8] = [0x2a, 0x17, 0x99, 0x03]
        let clientPublic = try DHTransport.publicKey(privateExponent: clientExponent)
        let server = try DHTransport.agree(peerPublicKey: clientPublic)
        let client = try DHTransport.agree(peerPublicKey: server.publicKey, privateExponent: clientExponent)

        #expect(server.publicKey.count == 128)
        #expect(server.key.count == 16)
        #expect(client.key.constantTimeEquals(server.key))

        let secret = SecureBytes(unwipedCopyOf: "correct horse battery staple".utf8)
        let sent = try DHTransport.encrypt(secret, key: server.key)
        let received = try DHTransport.decrypt(ciphertext: sent.ciphertext, iv: sent.iv, key: client.key)
        #expect(received.constantTimeEquals(secret))
    }

    @Test func eachAgreementUsesAFreshExponent() throws {
        let first = try DHTransport.agree(peerPublicKey: Vector.clientPublic)
        let second = try DHTransport.agree(peerPublicKey: Vector.clientPublic)
        #expect(first.publicKey != second.publicKey)
        #expect(!first.key.constantTimeEquals(second.key))
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("all zeros", [UInt8](repeating: 0, count: 128)),
        ("129 bytes without a leading zero", [0x01] + [UInt8](repeating: 0, count: 128)),
        ("Y = 1", [0x01]),
        ("Y = 1 padded", [UInt8](repeating: 0, count: 127) + [0x01]),
        ("Y = p-1", primeMinusOne),
        ("Y = p", Vector.prime),
        ("Y = p+1", primePlusOne),
        ("Y = 2^1024-1", [UInt8](repeating: 0xff, count: 128)),
    ])
    func agreementRejectsInvalidPeerKeys(_ name: String, _ key: [UInt8]) {
        #expect(throws: CryptoError.invalidPublicKey) {
            _ = try DHTransport.agree(peerPublicKey: key)
        }
        #expect(throws: CryptoError.invalidPublicKey) {
            _ = try DHTransport.agree(peerPublicKey: key, privateExponent: Vector.serverExponent)
        }
    }

    @Test(arguments: [
        ("Y = 2", [0x02]),
        (
            "Y = p-2",
            {
                var bytes = Vector.prime
                bytes[bytes.count - 1] -= 2
                return bytes
            }() as [UInt8]
        ),
    ])
    func agreementAcceptsTheEdgesOfTheRange(_ name: String, _ key: [UInt8]) throws {
        let result = try DHTransport.agree(peerPublicKey: key)
        #expect(result.publicKey.count == 128)
    }

    @Test func agreementAcceptsA127ByteMinimalKey() throws {
        // The vector's Z has a leading zero byte, so its minimal encoding is a valid 127-byte value.
        let minimal = Array(Vector.sharedSecret.dropFirst())
        #expect(minimal.count == 127)
        let fromMinimal = try DHTransport.agree(peerPublicKey: minimal, privateExponent: Vector.serverExponent)
        let fromPadded = try DHTransport.agree(
            peerPublicKey: Vector.sharedSecret,
            privateExponent: Vector.serverExponent
        )
        #expect(fromMinimal.key.constantTimeEquals(fromPadded.key))
        _ = try DHTransport.agree(peerPublicKey: minimal)
    }

    @Test func agreementAcceptsA129ByteKeyWithALeadingZero() throws {
        let signed = [0x00] + Vector.clientPublic
        #expect(signed.count == 129)
        let result = try DHTransport.agree(peerPublicKey: signed, privateExponent: Vector.serverExponent)
        #expect(result.key.unprotectedArray() == Vector.key)
        #expect(result.publicKey == Vector.serverPublic)
    }

    @Test func ourPublicKeyIsAlwaysPaddedTo128Bytes() throws {
        // g^7 = 128 is a one-byte value; the encoding must still be 128 bytes.
        let small = try DHTransport.publicKey(privateExponent: [0x07])
        #expect(small == [UInt8](repeating: 0, count: 127) + [0x80])
    }

    @Test func randomExponentsLieInsideTheGroupRange() throws {
        let group = try DHGroup()
        for _ in 0..<32 {
            let exponent = try group.randomExponent()
            let two = try BigNumber(word: 2)
            #expect(exponent.compare(two) >= 0)
            #expect(exponent.compare(group.primeMinusOne) < 0)
        }
    }
}

/// The client side of the exchange, as puffctl uses it against puffd.
@Suite struct DHClientExchangeTests {
    @Test func aClientExchangeAndTheServerAgreeOnTheSameKey() throws {
        let client = try DHTransport.ClientExchange()
        #expect(client.publicKey.count == 128)
        let server = try DHTransport.agree(peerPublicKey: client.publicKey)
        let key = try client.sessionKey(servicePublicKey: server.publicKey)
        #expect(key.count == 16)
        #expect(key.constantTimeEquals(server.key))
    }

    @Test func eachClientExchangeHasItsOwnPublicKey() throws {
        #expect(try DHTransport.ClientExchange().publicKey != DHTransport.ClientExchange().publicKey)
    }

    @Test func aDegenerateServiceKeyIsRefused() throws {
        let client = try DHTransport.ClientExchange()
        // The exchange is consumed by the call, so no #expect(throws:) closure can hold it.
        var refusal: CryptoError?
        do { _ = try client.sessionKey(servicePublicKey: [1]) } catch { refusal = error }
        #expect(refusal == .invalidPublicKey)
    }
}
