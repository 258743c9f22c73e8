// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffOpenBao
import PuffTesting
import Testing

/// Transit encrypt and decrypt, the unlock slot's wrap (docs/design/fleet.md §0), against a real
/// `bao server -dev`.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoTransitTests {
    @Test func aKeyEncryptedWithTransitDecryptsToTheSameBytes() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: "puff")
        let client = try bao.client()
        // Every byte value, and a length that needs base64 padding.
        let key = SecureBytes(unwipedCopyOf: (0...255).map { UInt8($0) } + [1, 2])
        let ciphertext = try await client.encrypt(key, key: "puff")
        #expect(ciphertext.hasPrefix("vault:v1:"))
        let plaintext = try await client.decrypt(ciphertext, key: "puff")
        #expect(plaintext.constantTimeEquals(key))
    }

    @Test func aTokenWhosePolicyLacksDecryptIsDeniedAndGetsNoPlaintext() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: "puff")
        let name = try await bao.policy("encrypt-only", #"path "transit/encrypt/puff" { capabilities = ["update"] }"#)
        let machine = try bao.client(token: try await bao.token(policies: [name]))
        let ciphertext = try await machine.encrypt(SecureBytes(unwipedCopyOf: [7, 7, 7]), key: "puff")
        let error = await #expect(throws: OpenBaoError.self) { try await machine.decrypt(ciphertext, key: "puff") }
        #expect(error == .denied(path: "transit/decrypt/puff"))
        #expect(try await bao.client().decrypt(ciphertext, key: "puff").unprotectedArray() == [7, 7, 7])
    }

    @Test func aCiphertextOfAnotherKeyIsAServerErrorNotAPlaintext() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: "puff")
        let client = try bao.client()
        let error = await #expect(throws: OpenBaoError.self) {
            try await client.decrypt("vault:v1:bm90IGEgY2lwaGVydGV4dA==", key: "puff")
        }
        guard case .server(400, _)? = error else {
            Issue.record("expected a 400, got \(String(describing: error))")
            return
        }
    }
}
