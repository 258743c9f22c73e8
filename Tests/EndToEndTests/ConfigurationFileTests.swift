// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The built `puffd` with `--config FILE`: the file's prompter order, pinentry terminal and
/// prompt timeout are what a real unlock goes through, options override it, `--print-config`
/// shows it without a bus, and a bad file stops the daemon with one line on standard error.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct ConfigurationFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-config-\(UUID().uuidString)")
    var configFile: URL { folder.appendingPathComponent("puffd.toml") }
    var answers: URL { folder.appendingPathComponent("answers") }
    var shown: URL { folder.appendingPathComponent("pinentry.log") }
    var fakePinentry: String { ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path }

    /// Writes `config` as the configuration file (after the vault folder and a fast KDF).
    func writeConfig(_ config: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let vault = "[vault]\ndata_dir = \"\(folder.appendingPathComponent("vault").path)\"\nkdf = \"interactive\"\n"
        try (vault + config).write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// puffd on `configFile` (plus `arguments`), with `login` holding one item, locked. No
    /// `DISPLAY`: pinentry can only be reached through the file's `pinentry_tty`.
    func lockedDaemon(_ arguments: [String] = [], answering script: [String] = []) async throws -> TestDaemon {
        try script.joined(separator: "\n").write(to: answers, atomically: true, encoding: .utf8)
        let puffd = try await TestDaemon(
            arguments: ["--config", configFile.path, "--vault", "file"] + arguments,
            environment: ["FAKE_PINENTRY_ANSWERS": answers.path, "FAKE_PINENTRY_LOG": shown.path])
        let env = puffd.clientEnvironment
        let initialise = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: env, input: Data("right pass\n".utf8))
        #expect(initialise.status == 0, "\(initialise.output)")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=config e2e", "service", "config-e2e"], environment: env,
            input: Data("the-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        #expect(try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: env).status == 0)
        return puffd
    }

    /// `secret-tool lookup` of the item, and how long it took.
    func lookup(_ puffd: TestDaemon) async throws -> (output: String, seconds: Double) {
        let start = ContinuousClock.now
        let result = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "config-e2e"], environment: puffd.clientEnvironment)
        let elapsed = ContinuousClock.now - start
        return (result.output, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    func pinentryLog() -> String { (try? String(contentsOf: shown, encoding: .utf8)) ?? "" }

    @Test func theFilesPrompterOrderAndPinentryTerminalUnlockWithoutADisplay() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeConfig(
            "[prompts]\norder = [\"pinentry\", \"none\"]\npinentry = \"\(fakePinentry)\"\npinentry_tty = \"/dev/pts/77\"\n"
        )
        let puffd = try await lockedDaemon(answering: ["right pass"])
        let (output, _) = try await lookup(puffd)
        #expect(output == "the-secret", "\(output)\n\(puffd.log.suffix(1500))")
        let shown = pinentryLog()
        #expect(shown.contains("OPTION ttyname=/dev/pts/77\n"), "\(shown)")
        // The daemon's environment has no TERM.
        #expect(shown.contains("OPTION ttytype=vt100\n"), "\(shown)")
    }

    @Test func anOptionOnTheCommandLineOverridesTheFilesPrompterOrder() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeConfig(
            "[prompts]\norder = [\"pinentry\", \"none\"]\npinentry = \"\(fakePinentry)\"\npinentry_tty = \"/dev/pts/77\"\n"
        )
        let puffd = try await lockedDaemon(["--prompter", "none"], answering: ["right pass"])
        let (output, _) = try await lookup(puffd)
        #expect(!output.contains("the-secret"))
        #expect(pinentryLog().isEmpty, "pinentry was not asked")
        #expect(puffd.log.contains("No prompter can reach a person"), "\(puffd.log.suffix(1500))")
    }

    @Test func theFilesPromptTimeoutDismissesAPromptNobodyAnswers() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // cat never sends pinentry's greeting: the prompt waits until the timeout dismisses it.
        try writeConfig(
            "[prompts]\norder = [\"pinentry\"]\npinentry = \"/bin/cat\"\npinentry_tty = \"/dev/pts/77\"\ntimeout = 2\n")
        let puffd = try await lockedDaemon()
        let (output, seconds) = try await lookup(puffd)
        #expect(!output.contains("the-secret"))
        #expect(puffd.log.contains("reason=timedOut"), "\(puffd.log.suffix(1500))")
        // Never before the file's 2 s; and before the default 60 s, which a 2 s timeout reaches
        // 58 s earlier however busy the machine: that margin is a hang guard, not a speed target.
        let defaultTimeout = 60.0  // DaemonConfiguration.promptTimeout
        #expect(seconds >= 2 && seconds < defaultTimeout, "took \(seconds) s")
        #expect(puffd.isRunning)
    }

    @Test func printConfigShowsTheFileAndExitsWithoutABus() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeConfig("[prompts]\norder = [\"none\"]\ntimeout = 7\n")
        let result = try await ChildProcess.run(
            TestDaemon.executablePath, ["--config", configFile.path, "--print-config", "--log-level", "debug"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("# puffd configuration in effect; file: \(configFile.path)\n"))
        for line in ["order = [ \"none\" ]", "timeout = 7", "kdf = \"interactive\"", "level = \"debug\"", "idle = 900"]
        {
            #expect(result.output.contains("\n\(line)\n"), "\(line) in:\n\(result.output)")
        }
    }

    @Test func aBadFileStopsPuffdWithTheFileLineAndKeyOnStandardError() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try writeConfig("\n[prompts]\ntimeout = -3\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestDaemon.executablePath)
        process.arguments = ["--config", configFile.path, "--address", "unix:path=/nonexistent"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": folder.path]
        let (output, error) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let status = await process.exitStatusWhenEnded()
        let stderr = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 2)
        #expect(
            stderr == "puffd: \(configFile.path):6: prompts.timeout: must be a positive number of seconds, not -3\n")
        #expect(stdout.isEmpty)
    }
}
