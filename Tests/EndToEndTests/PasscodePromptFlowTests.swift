// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Prompts that set a new passcode, through a test pinentry speaking Assuan: libsecret's
/// `secret_collection_create` gets a new collection whose passcode was asked twice and checked
/// against the policy, and gnome-keyring's `ChangeWithPrompt` changes a `digits6` passcode,
/// refusing `abc123` and `12345` with the policy's reason.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct PasscodePromptFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-newpass-\(UUID().uuidString)")
    var answers: URL { folder.appendingPathComponent("answers") }
    var shown: URL { folder.appendingPathComponent("pinentry.log") }

    /// puffd on a fresh file vault with a passcode set, asking through the test pinentry, which
    /// answers `script` (see fake_pinentry.py).
    func daemon(answering script: [String], oldPinentry: Bool = false) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try script.joined(separator: "\n").write(to: answers, atomically: true, encoding: .utf8)
        var environment = ["DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers.path, "FAKE_PINENTRY_LOG": shown.path]
        if oldPinentry { environment["FAKE_PINENTRY_NO_REPEAT"] = "1" }
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive",
                "--prompter", "pinentry,none",
                "--pinentry", ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path,
            ],
            environment: environment)
        let initialize = try await puffctl(["init", "--stdin"], input: "first pass\n", on: puffd)
        #expect(initialize.status == 0, "\(initialize.output)")
        return puffd
    }

    func puffctl(_ arguments: [String], input: String = "", on puffd: TestDaemon) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    func python(_ script: String, _ arguments: [String], on puffd: TestDaemon) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            ClientDriver.python, [ClientDriver.directory.appendingPathComponent(script).path] + arguments,
            environment: puffd.clientEnvironment)
    }

    func log() -> String { (try? String(contentsOf: shown, encoding: .utf8)) ?? "" }

    @Test func libsecretCreatesACollectionWhosePasscodeWasAskedTwiceAndMetThePolicy() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each GETPIN after SETREPEAT takes two answers: a short pair, then a good pair.
        let puffd = try await daemon(answering: ["short", "short", "work pass 1", "work pass 1"])
        let created = try await python("create_collection.py", ["Work", "work"], on: puffd)
        #expect(created.status == 0, "\(created.output)\n\(puffd.log.suffix(1500))")
        #expect(created.output == "/org/freedesktop/secrets/collection/Work\n")
        let shown = log()
        #expect(shown.components(separatedBy: "SETREPEAT Repeat:").count - 1 == 2, "asked twice each time: \(shown)")
        #expect(
            shown.contains(
                "wants to create the collection “Work”.%0AChoose its passcode (at least 8 characters)."),
            "\(shown)")
        #expect(shown.contains("SETDESC /usr/bin/python3"), "the asking executable is named: \(shown)")
        #expect(
            shown.contains("SETERROR The passcode must be at least 8 characters, try again (attempt 2 of 3)"),
            "\(shown)")
        #expect(!shown.contains("work pass 1") && !shown.contains("short\n"), "no PIN in what was sent")
        // The new collection opens with the passcode the person chose, and only with it.
        #expect(try await puffctl(["lock", "Work"], on: puffd).status == 0)
        #expect(try await puffctl(["unlock", "Work", "--stdin"], input: "short\n", on: puffd).status == 2)
        let unlock = try await puffctl(["unlock", "Work", "--stdin"], input: "work pass 1\n", on: puffd)
        #expect(unlock.status == 0, "\(unlock.output)")
    }

    @Test func anOldPinentryWithoutSetRepeatIsAskedTwiceByPuffdUntilBothMatch() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(
            answering: ["work pass 1", "work pass 2", "work pass 1", "work pass 1"], oldPinentry: true)
        let created = try await python("create_collection.py", ["Work"], on: puffd)
        #expect(created.status == 0, "\(created.output)\n\(puffd.log.suffix(1500))")
        let shown = log()
        #expect(shown.components(separatedBy: "GETPIN").count - 1 == 4, "\(shown)")
        #expect(shown.contains("SETERROR The passcodes differ, try again"), "\(shown)")
        #expect(try await puffctl(["lock", "Work"], on: puffd).status == 0)
        #expect(try await puffctl(["unlock", "Work", "--stdin"], input: "work pass 1\n", on: puffd).status == 0)
    }

    @Test func changeWithPromptRefusesLettersAndFiveDigitsUnderDigits6() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(
            answering: ["123456", "abc123", "abc123", "12345", "12345", "654321", "654321"])
        let create = try await puffctl(
            ["collection", "create", "Phone", "--policy", "digits6", "--stdin"], input: "123456\n", on: puffd)
        #expect(create.status == 0, "\(create.output)")
        let change = try await python(
            "prompt_client.py", ["change", "/org/freedesktop/secrets/collection/Phone"], on: puffd)
        #expect(change.output.contains("\"dismissed\": false"), "\(change.output)\n\(puffd.log.suffix(1500))")
        let shown = log()
        #expect(shown.contains("SETPROMPT Current passcode:"), "\(shown)")
        #expect(shown.contains("SETERROR The passcode must be 6 digits, try again (attempt 2 of 3)"), "\(shown)")
        #expect(shown.contains("SETERROR The passcode must be 6 digits, try again (attempt 3 of 3)"), "\(shown)")
        #expect(try await puffctl(["lock", "Phone"], on: puffd).status == 0)
        #expect(try await puffctl(["unlock", "Phone", "--stdin"], input: "123456\n", on: puffd).status == 2)
        #expect(try await puffctl(["unlock", "Phone", "--stdin"], input: "654321\n", on: puffd).status == 0)
    }
}
