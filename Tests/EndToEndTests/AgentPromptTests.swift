// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl agent` on a pseudo-terminal answers the unlock prompt of `secret-tool lookup`, a
/// collection's new passcode and the confirmations of a protected item's reads.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct AgentPromptTests {
    @Test func anAgentInATerminalUnlocksForAClientAndAWrongPasscodeIsAskedAgain() async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-agent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDir) }
        // A prompt timeout above the driver's HANG_GUARD: a lookup answered within it was dismissed.
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", dataDir.path, "--kdf", "interactive", "--prompter", "agent,none",
                "--prompt-timeout", String(HangGuard.driver.components.seconds),
            ])
        let env = puffd.clientEnvironment
        let initialize = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: env, input: Data("right pass\n".utf8))
        #expect(initialize.status == 0)
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=agent e2e", "service", "agent-e2e"], environment: env,
            input: Data("agent-secret".utf8))
        #expect(store.status == 0)
        #expect(try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: env).status == 0)
        let passed = try await ClientDriver.expectPasses(
            "agent_flow.py", [VaultFlowTests.puffctl, VaultFlowTests.puffctl], against: puffd)
        #expect(passed == 13, "\(puffd.log.suffix(2000))")
    }

    @Test func anAgentRegistersAgainWhenPuffdRestartsAndWithdrawsATimedOutQuestion() async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-agent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let bus = try TestBus()
        let home = dataDir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
        let passed = try await ClientDriver.expectPasses(
            "agent_flow.py",
            [
                "restart", VaultFlowTests.puffctl, TestDaemon.executablePath,
                dataDir.appendingPathComponent("vault").path,
            ],
            environment: environment, timeout: HangGuard.driver)
        #expect(passed == 9)
    }
}
