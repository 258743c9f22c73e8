// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Wrong-passcode delays are announced (issue 24 item 22): a wrong passcode is answered at once
/// with the delay before the next try is accepted, `puffctl unlock` prints it, and on a terminal
/// it says it waits before asking again. The built puffd and puffctl on a file vault.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct PasscodeDelayFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-delay-\(UUID().uuidString)")

    func daemon() async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try await TestDaemon(arguments: [
            "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive",
        ])
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    @Test func puffctlNamesTheDelayAfterEachWrongPasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let first = try await puffctl(puffd, ["unlock", "--stdin"], input: "wrong one\n")
        #expect(first.status == 2)
        #expect(
            first.output.contains("wrong passcode for 'login'; the next try is accepted in 0.5 s"), "\(first.output)")
        let second = try await puffctl(puffd, ["unlock", "--stdin"], input: "wrong two\n")
        #expect(second.status == 2)
        #expect(
            second.output.contains("wrong passcode for 'login'; the next try is accepted in 1 s"), "\(second.output)")
        let right = try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n")
        #expect(right.status == 0, "\(right.output)")
    }

    @Test func onATerminalPuffctlSaysItWaitsAndAsksAgain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let answers = folder.appendingPathComponent("answers")
        try "wrong one\nwrong two\nright pass\n".write(to: answers, atomically: true, encoding: .utf8)
        let script = ClientDriver.directory.appendingPathComponent("terminal_unlock.py").path
        let result = try await ChildProcess.run(
            ClientDriver.python, [script, VaultFlowTests.puffctl, answers.path], environment: puffd.clientEnvironment)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let output = try #require(object?["output"] as? String, "\(result.output)")
        #expect(object?["status"] as? Int == 0, "\(output)")
        #expect(output.components(separatedBy: "Passcode for login:").count - 1 == 3, "\(output)")
        #expect(output.contains("wrong passcode for 'login'; the next try is accepted in 0.5 s"), "\(output)")
        #expect(output.contains("Waiting 0.5 s for puffd to accept the next try"), "\(output)")
        #expect(output.contains("wrong passcode for 'login'; the next try is accepted in 1 s"), "\(output)")
        #expect(output.contains("Waiting 1 s for puffd to accept the next try"), "\(output)")
        #expect(!output.contains("wrong one") && !output.contains("right pass"), "no passcode on the terminal")
        #expect(try await puffctl(puffd, ["status"]).output.contains("login"))
    }
}
