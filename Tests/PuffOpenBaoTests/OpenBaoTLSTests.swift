// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffOpenBao
import PuffTesting
import Testing

/// `https` with `ca_file`: a server whose certificate chains to the file's authority is used; one
/// that does not is unreachable, the token never sent to it.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoTLSTests {
    @Test func aServerCertifiedByTheCAFileIsUsedAndWithoutTheFileItIsRefused() async throws {
        let bao = try await BaoServer(tls: true)
        #expect(bao.address.hasPrefix("https://"))
        let trusting = try bao.client()
        #expect(try await trusting.health().sealed == false)
        #expect(try await trusting.write("tls/x", mount: "secret", fields: [("entry", "AA==")], cas: 0) == 1)
        // The system's authorities do not know the dev server's own.
        let doubting = try OpenBaoClient(address: bao.address, auth: .token(bao.rootToken))
        let error = await #expect(throws: OpenBaoError.self) { try await doubting.read("tls/x", mount: "secret") }
        guard case .unreachable(let address, let reason)? = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(address == bao.address)
        #expect(reason.contains("certificate"), "\(reason)")
    }
}
