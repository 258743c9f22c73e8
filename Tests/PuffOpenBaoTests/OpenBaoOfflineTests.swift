// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffOpenBao
import PuffStore
import PuffTesting
import Testing

/// OpenBao out of reach: errors that name the address, the timeouts that bound a wait, and the
/// return once it answers again.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoOfflineTests {
    @Test func aServerOutOfReachMakesTheLogUnavailableNamingTheAddressThenItWorksAgain() async throws {
        let bao = try await BaoServer()
        let log = OpenBaoFleetLog(client: try bao.client())
        try await log.createEntry(1, [1], of: "team", space: SpaceID.random())
        bao.goOffline()
        let error = await #expect(throws: StoreError.self) { try await log.entry(1, of: "team") }
        guard case .unavailable(let why)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(why.hasPrefix("OpenBao at \(bao.address) is unreachable: "), "\(why)")
        #expect(!why.contains(String(decoding: bao.rootToken.unprotectedArray(), as: UTF8.self)))
        try bao.goOnline()
        #expect(try await log.entry(1, of: "team") == [1])
    }

    @Test func aServerThatNeverAnswersIsUnreachableOnceTheTimeoutPasses() async throws {
        // A socket that listens but never reads: the connection is made, the answer never comes.
        let listener = try LoopbackForwarder.listen(on: 0)
        defer { close(listener) }
        let address = "http://127.0.0.1:\(LoopbackForwarder.port(of: listener))"
        let client = try OpenBaoClient(
            address: address, auth: .token(SecureBytes(unwipedCopyOf: Array("s.x".utf8))), timeout: .seconds(1))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: OpenBaoError.self) { try await client.read("a", mount: "secret") }
        guard case .unreachable(let named, let reason)? = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(named == address)
        #expect(reason.contains("timed out"), "\(reason)")
        // Not before the timeout: the wait is libcurl's, as configured.
        #expect(clock.now - start >= .seconds(1))
    }

    @Test func anAddressThatIsNotHTTPIsRefusedAtOnce() throws {
        let token = OpenBaoAuth.token(SecureBytes(unwipedCopyOf: Array("s.x".utf8)))
        for address in ["file:///etc/passwd", "127.0.0.1:8200", "http://", "https://a b"] {
            let error = #expect(throws: OpenBaoError.self) { try OpenBaoClient(address: address, auth: token) }
            #expect(error == .refused("the OpenBao address \(address) is not an http:// or https:// URL"))
        }
    }
}
