// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

/// `puffctl doctor` on a puffd whose `[store.openbao]` names a real dev server: the checks
/// puffd runs with its token (which puffctl never sees), then the server gone.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct DoctorOpenBaoTests {
    @Test func doctorShowsPuffdsOpenBaoChecksAndFailsNamingTheAddressOnceItIsGone() async throws {
        let folder = try TestFolder("doctor-bao")
        let bao = try await BaoServer()
        let policy = try await bao.policy(
            "fleet",
            """
            path "secret/data/puff/*"     { capabilities = ["create", "read"] }
            path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
            """)
        let token = String(decoding: try await bao.token(policies: [policy]).unprotectedArray(), as: UTF8.self)
        let tokenFile = folder.appending("token").path
        #expect(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data(token.utf8), attributes: [.posixPermissions: 0o600]))
        let config = folder.appending("puffd.toml")
        try "[store.openbao]\naddress = \"\(bao.address)\"\ntoken_file = \"\(tokenFile)\"\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let puffd = try await TestDaemon(arguments: ["--config", config.path])

        let result = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["doctor"], environment: puffd.clientEnvironment)
        #expect(
            result.output.contains(
                "OpenBao\n  OK    reachable: OpenBao 2.7.2 at \(bao.address) answers: initialized, unsealed, active"),
            "\(result.output)")
        #expect(result.output.contains("OK    authenticated: OpenBao takes puffd's token, valid for"))
        #expect(result.output.contains("OK    policy: the token's policy allows what fleet collections need"))
        #expect(result.output.contains("OK    clock: this machine's clock agrees with OpenBao's"))
        #expect(!result.output.contains(token), "the token never reaches puffctl")

        bao.goOffline()
        let offline = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["doctor"], environment: puffd.clientEnvironment)
        #expect(offline.status == 1)
        #expect(
            offline.output.contains("FAIL  reachable: OpenBao at \(bao.address) is unreachable: "), "\(offline.output)")
        #expect(!offline.output.contains("authenticated:"), "nothing else is asked of a server that does not answer")
    }
}
