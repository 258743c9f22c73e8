// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffOpenBao
import PuffStore
import PuffTesting
import Testing

/// `[store.openbao] namespace` on a real `bao server -dev` (OpenBao has namespaces since 2.3): a
/// team's collections live in its namespace, and the root namespace does not see them.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoNamespaceTests {
    @Test(.enabled(if: BaoServer.isAvailable))
    func aFleetLogInANamespaceWritesThereAndTheRootSeesNothing() async throws {
        let bao = try await BaoServer()
        try await bao.makeNamespace("team1")
        let space = SpaceID.random()
        let log = OpenBaoFleetLog(client: try bao.client(namespace: "team1"))
        #expect(try await log.replaceHeader([1, 2, 3], of: "shared", expecting: 0, space: space) == 1)
        try await log.createEntry(1, [4, 5], of: "shared", space: space)
        #expect(try await log.collections() == ["shared"])
        #expect(try await bao.client(namespace: "team1").read("puff/shared/header", mount: "secret") != nil)
        // The root namespace's own `secret/` mount holds nothing of it.
        #expect(try await bao.client().read("puff/shared/header", mount: "secret") == nil)
        #expect(try await OpenBaoFleetLog(client: try bao.client()).collections() == [])
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func healthIsAskedInTheRootNamespaceWhichAloneAnswersIt() async throws {
        let bao = try await BaoServer()
        try await bao.makeNamespace("team1")
        // OpenBao answers sys/health in a namespace with 400 "operation unavailable in namespaces".
        let health = try await bao.client(namespace: "team1").health()
        #expect(health.initialized && !health.sealed)
    }

    @Test func aNamespaceThatCouldBreakTheHeaderLineIsRefused() {
        for bad in ["team1\r\nX-Vault-Token: stolen", "", "a//b", "../root", "a b", "tab\there"] {
            #expect(
                throws: OpenBaoError.refused(
                    "the OpenBao namespace \(bad.debugDescription) is not names separated by \"/\""),
                "\(bad.debugDescription)"
            ) {
                try OpenBaoClient(
                    address: "http://127.0.0.1:8200", auth: .token(SecureBytes(unwipedCopyOf: [1])), namespace: bad)
            }
        }
        for good in ["team1", "team1/ci", "team1/ci/"] {
            #expect(
                (try? OpenBaoClient(
                    address: "http://127.0.0.1:8200", auth: .token(SecureBytes(unwipedCopyOf: [1])), namespace: good))?
                    .namespace == good)
        }
    }
}
