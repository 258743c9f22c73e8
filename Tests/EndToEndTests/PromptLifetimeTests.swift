// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Nothing waits forever: with no prompter the prompt is dismissed without waiting for the
/// timeout; a prompt nobody answers is dismissed at the timeout while other clients are served;
/// a client that leaves mid-prompt ends its prompt and the pinentry asking for it.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct PromptLifetimeTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-lifetime-\(UUID().uuidString)")
    var answers: URL { folder.appendingPathComponent("answers") }
    var shown: URL { folder.appendingPathComponent("pinentry.log") }
    /// Written by the test pinentry, with its pid, once it holds a question unanswered.
    var held: URL { folder.appendingPathComponent("pinentry.log.held") }
    static let login = "/org/freedesktop/secrets/collection/login"
    /// A prompt timeout no passing test reaches: above the client's deadline, ``HangGuard/step``.
    static let longTimeout = Int(HangGuard.driver.components.seconds)
    /// The client's deadline: a hang guard, below ``longTimeout``.
    static let deadline = String(HangGuard.step.components.seconds)

    /// puffd on a file vault whose `login` is locked, asking `prompters` (the test pinentry answers
    /// `script`, one line per question: by default it holds every question), dismissing after
    /// `timeout` seconds.
    func lockedDaemon(prompters: String, timeout: Int, answering script: [String] = ["HOLD"]) async throws
        -> TestDaemon
    {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try script.joined(separator: "\n").write(to: answers, atomically: true, encoding: .utf8)
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive",
                "--prompter", prompters, "--prompt-timeout", String(timeout),
                "--pinentry", ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path,
            ],
            environment: ["DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers.path, "FAKE_PINENTRY_LOG": shown.path])
        let env = puffd.clientEnvironment
        #expect(
            try await ChildProcess.run(
                VaultFlowTests.puffctl, ["init", "--stdin"], environment: env, input: Data("right pass\n".utf8)
            ).status == 0)
        #expect(try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: env).status == 0)
        return puffd
    }

    func promptClient(_ arguments: [String], on puffd: TestDaemon) async throws -> [String: Any] {
        let run = try await ChildProcess.run(
            ClientDriver.python, [ClientDriver.directory.appendingPathComponent("prompt_client.py").path] + arguments,
            environment: puffd.clientEnvironment)
        let line = try #require(run.output.split(separator: "\n").last, "\(run.output)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output)")
    }

    /// The pid the test pinentry wrote when it began holding, once it has.
    func heldPinentry() async -> Int32? {
        let held = self.held
        let pid: @Sendable () -> Int32? = { (try? String(contentsOf: held, encoding: .utf8)).flatMap { Int32($0) } }
        _ = await poll(limit: HangGuard.step) { pid() != nil }
        return pid()
    }

    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

    @Test func withNoPrompterTheUnlockIsDismissedWithoutWaitingForTheTimeout() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(prompters: "none", timeout: Self.longTimeout)
        let outcome = try await promptClient(["unlock", Self.login, "--deadline", Self.deadline], on: puffd)
        #expect(outcome["dismissed"] as? Bool == true, "\(outcome)")
        #expect(
            outcome["result"] as? String == "dbus.Array([], signature=dbus.Signature('o'), variant_level=1)",
            "\(outcome)")
        // Not the prompt timeout: the client's deadline, shorter, would have ended the wait first.
        #expect(outcome["timeout"] == nil)
        #expect(puffd.log.contains("To unlock, run: puffctl unlock login"), "\(puffd.log.suffix(1500))")
    }

    @Test func aPromptNobodyAnswersIsDismissedAtTheTimeoutWhileOthersAreServed() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(prompters: "pinentry", timeout: 5)
        async let outcome = promptClient(["unlock", Self.login, "--deadline", Self.deadline], on: puffd)
        let pinentry = try #require(await heldPinentry(), "the pinentry never started")
        // While the question is held, another client's calls are answered.
        let status = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["status"], environment: puffd.clientEnvironment)
        #expect(status.status == 0 && status.output.contains("locked"), "\(status.output)")
        let search = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["search", "service", "nothing-here"], environment: puffd.clientEnvironment)
        #expect(search.status == 0 && search.output.isEmpty, "\(search.status) \(search.output)")
        let ended = try await outcome
        #expect(ended["dismissed"] as? Bool == true, "\(ended)")
        #expect(puffd.log.contains("reason=timedOut"), "\(puffd.log.suffix(1500))")
        #expect(await poll(limit: HangGuard.step) { !Self.isAlive(pinentry) }, "the held pinentry was ended")
    }

    @Test func aClientThatLeavesMidPromptEndsItsPromptAndThePinentry() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(prompters: "pinentry", timeout: Self.longTimeout)
        let left = try await ChildProcess.run(
            ClientDriver.python,
            [
                ClientDriver.directory.appendingPathComponent("prompt_client.py").path, "unlock", Self.login,
                "--disconnect-when", held.path,
            ],
            environment: puffd.clientEnvironment)
        #expect(left.output == "left\n", "\(left.output)")
        let pinentry = try #require(await heldPinentry(), "the pinentry never started")
        #expect(await poll(limit: HangGuard.step) { !Self.isAlive(pinentry) }, "the held pinentry was ended")
        #expect(
            await poll(limit: HangGuard.step) { puffd.log.contains("reason=its client left") },
            "\(puffd.log.suffix(1500))")
    }

    /// Issue 24 item 17: a pinentry that dies mid-question (pinentry-curses when its terminal goes
    /// away) while its client leaves made puffd's goodbye to it a write to a closed pipe, and puffd
    /// died of SIGPIPE (exit 141) with no log line.
    @Test func aPinentryThatDiesMidQuestionAsItsClientLeavesLeavesPuffdServing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(prompters: "pinentry", timeout: 600, answering: ["EXIT", "right pass"])
        let left = try await ChildProcess.run(
            ClientDriver.python,
            [
                ClientDriver.directory.appendingPathComponent("prompt_client.py").path, "unlock", Self.login,
                "--disconnect-when", held.path,
            ],
            environment: puffd.clientEnvironment)
        #expect(left.output == "left\n", "\(left.output)")
        // Logged after the goodbye was written to the dead pinentry.
        #expect(
            await poll(limit: HangGuard.step) { puffd.log.contains("pinentry ended without answering") },
            "\(puffd.log.suffix(1500))")
        let status = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["status"], environment: puffd.clientEnvironment, timeout: HangGuard.step)
        #expect(status.status == 0 && status.output.contains("locked"), "\(status.status) \(status.output)")
        #expect(puffd.isRunning, "\(puffd.log.suffix(1500))")
        // The next question goes to a new pinentry, which answers.
        let unlocked = try await promptClient(["unlock", Self.login, "--deadline", "120"], on: puffd)
        #expect(unlocked["dismissed"] as? Bool == false, "\(unlocked)\n\(puffd.log.suffix(1500))")
    }

    /// Issue 24 item 22: on a vault with no passcode, `secret-tool store` said only "no such
    /// object" and puffd's log suggested `puffctl collection create`; both name `puffctl init` now.
    @Test func storingOnAVaultWithNoPasscodeTellsTheClientAndTheLogToRunInit() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive", "--prompter", "none",
            ])
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=new vault", "service", "new-vault"],
            environment: puffd.clientEnvironment, input: Data("s".utf8))
        #expect(store.status != 0)
        #expect(store.output.contains("run `puffctl init`"), "\(store.output)")
        #expect(puffd.log.contains("To set it (and create login), run: puffctl init"), "\(puffd.log.suffix(1500))")
        #expect(!puffd.log.contains("puffctl collection create"), "\(puffd.log.suffix(1500))")
    }
}
