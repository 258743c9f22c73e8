// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A client's `Unlock` (secret-tool) answered through pinentry with a security key (issue 26 item
/// 4, design §5 F): the built puffd's key is the software authenticator `--touch wait`, and the
/// test pinentry (Clients/fake_pinentry.py) shows the touch question. A touch opens the
/// collection and ends the pinentry's question; Cancel pressed while the key waits sends CTAPHID
/// CANCEL to the key and leaves the collection locked.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyPinentryTests {
    /// puffd asking the test pinentry, which answers `script` (fake_pinentry.py), its key
    /// `waiting`; `login` holds an item and a fido2 slot “yubikey” (enrolled through a key of the
    /// same seed that touches at once); then locked.
    static func vault(
        _ keys: SecurityKeyBench, _ waiting: SoftwareSecurityKey, answering script: [String]
    ) async throws -> SecurityKeyVault {
        try script.joined(separator: "\n").write(
            toFile: keys.path("answers"), atomically: true, encoding: .utf8)
        let enrolling = try await keys.start("enrolling")
        // A prompt timeout above the lookup's hang guard: a prompt that ends within it was
        // answered, not timed out (whose end would cancel the key's wait as well).
        let vault = try await SecurityKeyVault(
            keys, device: waiting,
            [
                "--prompter", "pinentry,none", "--pinentry",
                ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path,
                "--prompt-timeout", String(HangGuard.driver.components.seconds),
            ],
            environment: [
                "DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": keys.path("answers"),
                "FAKE_PINENTRY_LOG": keys.path("pinentry.log"),
            ])
        let added = try await vault.enrol(label: "yubikey", device: enrolling)
        #expect(added.status == 0, "\(added.output)")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=sk pinentry", "service", "sk-pinentry"],
            environment: vault.puffd.clientEnvironment, input: Data("sk-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        try await vault.lockAll()
        return vault
    }

    /// `secret-tool lookup`, running until it ends (killed after ``HangGuard/step``).
    static func lookup(_ vault: SecurityKeyVault) -> Task<ChildProcess.Result, any Error> {
        Task {
            try await ChildProcess.run(
                "/usr/bin/secret-tool", ["lookup", "service", "sk-pinentry"],
                environment: vault.puffd.clientEnvironment)
        }
    }

    static func shown(_ keys: SecurityKeyBench) -> String {
        (try? String(contentsOfFile: keys.path("pinentry.log"), encoding: .utf8)) ?? ""
    }

    @Test func aTouchWhilePinentryAsksForItOpensTheCollection() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key", touch: .wait)
        let vault = try await Self.vault(keys, key, answering: ["HOLD"])
        let lookup = Self.lookup(vault)
        #expect(try await key.waitForLogLine("touch?"), "\(vault.puffd.log.suffix(1500))")
        key.touch()
        let read = try await lookup.value
        #expect(read.output == "sk-secret", "\(read.output)\n\(vault.puffd.log.suffix(1500))")
        let shown = Self.shown(keys)
        #expect(shown.contains("Touch the security key “yubikey” now."), "\(shown)")
        #expect(shown.contains("CONFIRM"), "\(shown)")
        #expect(try await vault.isLocked() == false)
        #expect(key.logCount("cancel") == 0, "\(key.logged())")
        _ = await vault.puffd.terminate()
    }

    @Test func cancelInPinentryWhileTheKeyWaitsSendsCancelToTheKeyAndLeavesItLocked() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key", touch: .wait)
        // Cancel pressed once the key waits (the test writes the gate file then).
        let gate = keys.path("key-waits")
        let vault = try await Self.vault(keys, key, answering: ["WAIT \(gate) CANCEL"])
        let lookup = Self.lookup(vault)
        #expect(try await key.waitForLogLine("touch?"), "\(vault.puffd.log.suffix(1500))")
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        let read = try await lookup.value
        // secret-tool's own "nothing found" (1), not the hang guard's SIGKILL (9).
        #expect(read.status == 1, "secret-tool ended with \(read.status): \(read.output)")
        #expect(!read.output.contains("sk-secret"))
        #expect(try await key.waitForLogLine("cancel"), "no CTAPHID CANCEL reached the key: \(key.logged())")
        #expect(vault.puffd.log.contains("Prompt dismissed"), "\(vault.puffd.log.suffix(1500))")
        #expect(try await vault.isLocked() == true)
        #expect(Self.shown(keys).components(separatedBy: "GETPIN").count == 1, "no passcode asked after Cancel")
        _ = await vault.puffd.terminate()
    }
}
