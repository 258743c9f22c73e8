// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// What `make run` does after building: `scripts/run.sh` with no session bus starts a private one,
/// prints the hint, and a `secret-tool` from another shell can use the daemon.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct MakeRunTests {
    @Test func theRunScriptStartsABusAndPuffdThatSecretToolCanUse() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("puff-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let logURL = home.appendingPathComponent("run.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            TestBus.repositoryRoot.appendingPathComponent("scripts/run.sh").path, TestDaemon.executablePath,
        ]
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]  // no DBUS_SESSION_BUS_ADDRESS
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer { kill(process.processIdentifier, SIGKILL) }

        // The hint names the private bus; the daemon is ready once its "serving" line is logged.
        @Sendable func hintedAddress() -> String? {
            let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            guard text.contains(" serving"),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("  DBUS_SESSION_BUS_ADDRESS=") })
            else { return nil }
            return String(line.dropFirst("  DBUS_SESSION_BUS_ADDRESS=".count))
        }
        _ = await poll(limit: HangGuard.step, every: .milliseconds(50)) { hintedAddress() != nil }
        let bus = try #require(
            hintedAddress(), "no hint; output: \((try? String(contentsOf: logURL, encoding: .utf8)) ?? "")")
        let text = try String(contentsOf: logURL, encoding: .utf8)
        #expect(text.contains("secret-tool store"))

        // The script execs dbus-run-session, which outlives a killed parent; stopping puffd (found
        // through the bus) ends dbus-run-session and its private bus with it.
        let probe = try await BusConnection.connect(address: bus)
        let puffd = try await probe.processID(of: "org.freedesktop.secrets")
        // dbus-run-session stops its bus with SIGTERM, which the inherited signal mask blocks.
        let busDaemon = try await probe.processID(of: "org.freedesktop.DBus")
        probe.close()
        defer { kill(pid_t(busDaemon), SIGKILL) }
        defer { kill(pid_t(puffd), SIGKILL) }

        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus, "HOME": home.path, "PATH": "/usr/bin:/bin"]
        #expect(text.contains("puffctl init"), "a new vault says how to set its passcode")
        let puffctl = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent()
            .appendingPathComponent("puffctl").path
        let initialized = try await ChildProcess.run(
            puffctl, ["init", "--stdin"], environment: environment, input: Data("run pass\n".utf8))
        #expect(initialized.status == 0, "\(initialized.output)")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=make run", "service", "make-run.example", "user", "alice"],
            environment: environment, input: Data("run-secret".utf8))
        #expect(store.status == 0)
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "make-run.example", "user", "alice"],
            environment: environment)
        #expect(lookup.status == 0)
        #expect(lookup.output == "run-secret")

        // Let dbus-run-session see puffd go and take its bus down before anything is killed harder.
        kill(pid_t(puffd), SIGKILL)
        _ = await poll(limit: HangGuard.step, every: .milliseconds(20)) { process.hasExited }
    }
}
