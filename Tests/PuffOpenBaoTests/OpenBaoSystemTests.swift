// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffFormats
import PuffTesting
import Testing

@testable import PuffOpenBao

/// What `puffctl doctor` asks (health, the server's clock) and how request bodies are written.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoSystemTests {
    @Test(.enabled(if: BaoServer.isAvailable))
    func healthSaysUnsealedAndTheServersClockFallsWithinTheCall() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        let health = try await client.health()
        #expect(health.initialized && !health.sealed && !health.standby && health.version == "2.7.2")
        // The same clock on both ends: the Date header is a second between the two readings.
        let before = Int64(time(nil))
        let server = try await client.serverTime()
        let after = Int64(time(nil))
        #expect((before...after).contains(server), "\(before) \(server) \(after)")
    }

    @Test func aBodyEscapesQuotesBackslashesAndControlCharactersAndReadsBack() throws {
        let tricky = "a\"b\\c\nd\u{01}e/f é"
        let body = JSONBody.object([
            ("text", .text(tricky)), ("secret", .secret(SecureBytes(unwipedCopyOf: Array(tricky.utf8)))),
            ("number", .number(18_446_744_073_709_551_615)), ("list", .strings(["x", tricky])),
        ])
        let bytes = body.encoded.unprotectedArray()
        #expect(!bytes.contains(0x0A) && !bytes.contains(0x01), "raw control characters in \(bytes)")
        let document = try JSONDocument(bytes)
        #expect(document.string(document.root["text"]) == tricky)
        #expect(document.secret(document.root["secret"])?.unprotectedArray() == Array(tricky.utf8))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""number":18446744073709551615"#))
        #expect(document.root["list"]?.elements?.map { document.string($0) } == ["x", tricky])
    }
}
