// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A real client's `Unlock` (secret-tool, python secretstorage) answered by `puffctl agent` on a
/// pseudo-terminal with a security key (issue 26 item 4, design §5 F): the built puffd's key is
/// the software authenticator with `--touch wait`, touched by the driver (Clients/
/// security_key_agent.py). A touch opens the collection; cancelling the touch question in the
/// agent sends CTAPHID CANCEL to the key and completes the prompt dismissed; a fido2+passcode slot
/// asks its passcode, then the touch, and opens only with both.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyAgentTests {
    /// puffd asking agents, its key `waiting`; `login` holds an item and has a fido2 slot
    /// “yubikey” (with the passcode `slotPasscode` when given), enrolled through an authenticator
    /// of the same seed that touches at once; then locked.
    static func vault(
        _ keys: SecurityKeyBench, _ waiting: SoftwareSecurityKey, slotPasscode: String? = nil
    ) async throws -> SecurityKeyVault {
        let enrolling = try await keys.start("enrolling")
        // A prompt timeout above the driver's HANG_GUARD: a prompt that ends within it was answered.
        let vault = try await SecurityKeyVault(
            keys, device: waiting,
            ["--prompter", "agent,none", "--prompt-timeout", String(HangGuard.driver.components.seconds)])
        let added = try await vault.enrol(label: "yubikey", passcode: slotPasscode, device: enrolling)
        #expect(added.status == 0, "\(added.output)")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=sk e2e", "service", "sk-e2e"],
            environment: vault.puffd.clientEnvironment, input: Data("sk-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        try await vault.lockAll()
        return vault
    }

    static func drive(_ mode: String, _ vault: SecurityKeyVault, _ key: SoftwareSecurityKey) async throws -> Int {
        try await ClientDriver.expectPasses(
            "security_key_agent.py",
            [mode, VaultFlowTests.puffctl, String(key.processIdentifier), key.log.path], against: vault.puffd)
    }

    @Test func aTouchAnswersAClientsUnlockAndCancellingInTheAgentCancelsTheKey() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key", touch: .wait)
        let vault = try await Self.vault(keys, key)
        let passed = try await Self.drive("touch", vault, key)
        #expect(passed == 8, "\(key.logged().suffix(400))\n\(vault.puffd.log.suffix(2000))")
        _ = await vault.puffd.terminate()
    }

    @Test func aFido2PasscodeSlotIsAskedItsPasscodeThenATouchAndOpensOnlyWithBoth() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key", touch: .wait)
        let vault = try await Self.vault(keys, key, slotPasscode: "key and words")
        let passed = try await Self.drive("passcode", vault, key)
        #expect(passed == 5, "\(key.logged().suffix(400))\n\(vault.puffd.log.suffix(2000))")
        _ = await vault.puffd.terminate()
    }
}
