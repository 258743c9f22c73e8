// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffOpenBao
import PuffTesting
import Testing

/// PuffTesting's `BaoServer`, which every OpenBao test starts: ports chosen free can be taken by
/// another test's server before bao binds them, and the server then starts on others.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct BaoServerStartTests {
    @Test func aServerWhosePortIsTakenMeanwhileStartsOnAnother() async throws {
        let taken = try LoopbackForwarder.listen(on: 0)
        defer { close(taken) }
        let port = LoopbackForwarder.port(of: taken)
        let bao = try await BaoServer(firstPort: port)
        #expect(!bao.directAddress.hasSuffix(":\(port)"))
        #expect(try await bao.client().health().sealed == false)
    }
}
