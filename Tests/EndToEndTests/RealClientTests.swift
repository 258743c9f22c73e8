// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The built `puffd` on a private `dbus-daemon`, driven by the clients people actually use.
/// Each test gets its own bus and daemon, so they run in parallel and cannot disturb each other.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct RealClientTests {
    @Test func secretToolStoresLooksUpSearchesClearsAndLocks() async throws {
        let daemon = try await TestDaemon()
        let passed = try await ClientDriver.expectPasses("secret_tool_flow.sh", against: daemon)
        #expect(passed >= 12)
    }

    @Test func secretstorageWorksOverTheDHAndThePlainSession() async throws {
        let daemon = try await TestDaemon()
        let passed = try await ClientDriver.expectPasses("secretstorage_flow.py", against: daemon)
        #expect(passed >= 30)
    }

    @Test func pythonKeyringAndItsCommandLineRoundTrip() async throws {
        let daemon = try await TestDaemon()
        try await ClientDriver.expectPasses("keyring_flow.py", against: daemon)
    }

    @Test func gitCredentialLibsecretStoresGetsAndErases() async throws {
        let daemon = try await TestDaemon()
        // The helper is built from Debian's git contrib source once per build folder.
        let tools = TestBus.repositoryRoot.appendingPathComponent(".build/e2e-tools").path
        try await ClientDriver.expectPasses("git_credential_flow.sh", [tools], against: daemon)
    }

    @Test func badInputGetsDBusErrorsAndTheDaemonKeepsServing() async throws {
        let daemon = try await TestDaemon()
        let passed = try await ClientDriver.expectPasses("bad_input.py", against: daemon)
        #expect(passed >= 30)
        #expect(!daemon.log.contains("Fatal error"))
    }
}
