// SPDX-License-Identifier: Apache-2.0
import Synchronization
import Testing

@testable import PuffCrypto

/// The primitives KDBX needs beyond AES-CBC and SHA-2: known answers from RFC 8439 and from
/// pycryptodome and argon2-cffi (what pykeepass computes with), and gzip's failure cases.
@Suite struct KDBXPrimitivesTests {
    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
    func secure(_ bytes: [UInt8]) -> SecureBytes { SecureBytes(unwipedCopyOf: bytes) }

    @Test func chacha20MatchesRFC8439SunscreenVector() throws {
        let key = secure((0..<32).map { UInt8($0) })
        let nonce: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x4A, 0, 0, 0, 0]
        var stream = try StreamCipher(.chacha20, key: key, nonce: nonce)
        // The RFC starts at block counter 1: spend block 0 first.
        _ = try stream.encrypt(secure([UInt8](repeating: 0, count: 64)))
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let ciphertext = try stream.encrypt(secure(plaintext))
        #expect(hex(Array(ciphertext.prefix(16))) == "6e2e359a2568f98041ba0728dd0d6981")
    }

    @Test func salsa20MatchesPycryptodome() throws {
        var stream = try StreamCipher(
            .salsa20, key: secure((0..<32).map { UInt8($0) }), nonce: (0..<8).map { UInt8($0) })
        let keystream = try stream.encrypt(secure([UInt8](repeating: 0, count: 100)))
        #expect(hex(Array(keystream.prefix(32))) == "2ead0f5f185729ced672b3a928e454f72fdb44a87b9cd8d219e4ec14aef9c6bc")
        #expect(hex(Array(keystream.suffix(4))) == "bdf5a3d5")
    }

    @Test(arguments: [StreamCipher.Algorithm.chacha20, .salsa20])
    func aStreamCutIntoOddPiecesIsTheSameStream(_ algorithm: StreamCipher.Algorithm) throws {
        let key = secure((0..<32).map { UInt8($0 * 3) })
        let nonce = [UInt8](repeating: 7, count: algorithm == .chacha20 ? 12 : 8)
        let plaintext = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var whole = try StreamCipher(algorithm, key: key, nonce: nonce)
        let once = try whole.encrypt(secure(plaintext))
        var pieces = try StreamCipher(algorithm, key: key, nonce: nonce)
        var joined: [UInt8] = []
        for range in [0..<1, 1..<63, 63..<64, 64..<65, 65..<200, 200..<200, 200..<300] {
            joined += try pieces.encrypt(secure(Array(plaintext[range])))
        }
        #expect(joined == once)
        var back = try StreamCipher(algorithm, key: key, nonce: nonce)
        #expect(try back.decrypt(once).unprotectedArray() == plaintext)
    }

    @Test func aesKDFMatchesPykeepass() throws {
        let transformed = try AESKDF.transform(
            secure([UInt8](repeating: 1, count: 32)), seed: secure([UInt8](repeating: 2, count: 32)), rounds: 1000)
        #expect(
            hex(transformed.unprotectedArray()) == "0d7c727b3e88f2d8c5306f4f2ec5a85c931b9307695689e0f7591dd87a323f81")
    }

    @Test func aesKDFCountsItsRoundsInStridesAndGivesTheSameKey() throws {
        let key = [UInt8](repeating: 1, count: 32)
        let seed = [UInt8](repeating: 2, count: 32)
        let counted = Mutex<[UInt64]>([])
        let rounds = 2 * AESKDF.countingStride + 1000
        let transformed = try AESKDF.transform(secure(key), seed: secure(seed), rounds: rounds) { done in
            counted.withLock { $0.append(done) }
        }
        #expect(counted.withLock { $0 } == [AESKDF.countingStride, 2 * AESKDF.countingStride, rounds])
        let plain = try AESKDF.transform(secure(key), seed: secure(seed), rounds: rounds)
        #expect(transformed.unprotectedArray() == plain.unprotectedArray())
    }

    @Test func argon2dAndArgon2idMatchArgon2Cffi() throws {
        let parameters = Argon2.Parameters(iterations: 2, memoryKiB: 64, parallelism: 2)
        let salt = Array("somesaltsomesalt".utf8)
        let password = secure(Array("password".utf8))
        let d = try Argon2.hash(.d, password: password, salt: salt, parameters: parameters)
        let id = try Argon2.hash(.id, password: password, salt: salt, parameters: parameters)
        #expect(hex(d.unprotectedArray()) == "58d9485f9c7394e7a3a3759ae7d111c27fcc13848bfc78fa6f1d6618e2901a79")
        #expect(hex(id.unprotectedArray()) == "c263317d002f84b5342fa66fa169e4bce6a356a13f19193346322ef3522e0702")
    }

    @Test func argon2RefusesAnUnknownVersion() {
        let parameters = Argon2.Parameters(iterations: 2, memoryKiB: 64, parallelism: 2, version: 0x14)
        #expect(throws: CryptoError.invalidParameters) {
            try Argon2.hash(.d, password: secure([1]), salt: [UInt8](repeating: 0, count: 16), parameters: parameters)
        }
    }

    @Test func gzipRoundTripsAndRefusesTruncationAndExcess() throws {
        let plain = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let compressed = try Gzip.compress(secure(plain))
        #expect(compressed.count < plain.count)
        #expect(try Gzip.decompress(compressed, limit: 1 << 20).unprotectedArray() == plain)
        let truncated = secure(Array(compressed.unprotectedArray().dropLast(20)))
        #expect(throws: Gzip.Failure.corrupt) { try Gzip.decompress(truncated, limit: 1 << 20) }
        #expect(throws: Gzip.Failure.tooLarge) { try Gzip.decompress(compressed, limit: 100_000) }
        #expect(try Gzip.decompress(try Gzip.compress(.empty), limit: 1 << 20).isEmpty)
    }
}
