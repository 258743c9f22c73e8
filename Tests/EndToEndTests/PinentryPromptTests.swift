// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A locked collection unlocked through pinentry: `secret-tool lookup` starts the prompt, a test
/// pinentry speaking Assuan answers from a script, and the secret comes back.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct PinentryPromptTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-pinentry-\(UUID().uuidString)")
    var answers: URL { folder.appendingPathComponent("answers") }
    var shown: URL { folder.appendingPathComponent("pinentry.log") }

    /// puffd on a fresh file vault with `login` holding one item, locked, and the test pinentry
    /// set to answer `script` (one line per GETPIN).
    func lockedDaemon(answering script: [String]) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try script.joined(separator: "\n").write(to: answers, atomically: true, encoding: .utf8)
        let pinentry = ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive",
                "--prompter", "pinentry,none", "--pinentry", pinentry,
            ],
            environment: [
                "DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers.path, "FAKE_PINENTRY_LOG": shown.path,
            ])
        let env = puffd.clientEnvironment
        #expect(
            try await ChildProcess.run(
                VaultFlowTests.puffctl, ["init", "--stdin"], environment: env, input: Data("right pass\n".utf8)
            ).status == 0)
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=pinentry e2e", "service", "pinentry-e2e"], environment: env,
            input: Data("the-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        #expect(try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: env).status == 0)
        return puffd
    }

    func log() -> String { (try? String(contentsOf: shown, encoding: .utf8)) ?? "" }

    @Test func aWrongPasscodeIsAskedAgainWithAnErrorAndTheRightOneReturnsTheSecret() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(answering: ["wrong pass", "right pass"])
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "pinentry-e2e"], environment: puffd.clientEnvironment)
        #expect(lookup.output == "the-secret", "\(lookup.output)\n\(puffd.log.suffix(1500))")
        let shown = log()
        #expect(shown.components(separatedBy: "GETPIN").count - 1 == 2, "asked twice: \(shown)")
        #expect(
            shown.contains("SETERROR Wrong passcode; the next try is accepted in 0.5 s, try again (attempt 2 of 3)"),
            "\(shown)")
        // Locked, login shows its id, as after a restart (docs/collections.md).
        #expect(shown.contains("SETDESC /usr/bin/secret-tool wants to unlock the collection “login”."), "\(shown)")
        #expect(!shown.contains("right pass") && !shown.contains("wrong pass"), "no PIN in what was sent")
    }

    @Test func cancellingThePinentryDismissesThePromptAndReturnsNoSecret() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await lockedDaemon(answering: ["CANCEL"])
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "pinentry-e2e"], environment: puffd.clientEnvironment)
        #expect(!lookup.output.contains("the-secret"))
        #expect(log().components(separatedBy: "GETPIN").count - 1 == 1)
        #expect(puffd.log.contains("Prompt dismissed"), "\(puffd.log.suffix(1500))")
    }
}
