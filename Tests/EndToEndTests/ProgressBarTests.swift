// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 25 item 4, through the built `puffd` and `puffctl`: `puffctl compact` of a big journal
/// shows its progress bar (count, rate, time left) in a real terminal, a tmux pane read with
/// `capture-pane` while it runs, and erases it at the end; on a pipe it shows none, and with
/// `--json` progress comes as JSON lines on standard error.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ProgressBarTests {
    /// How long the bar may take to show, and the command to end: a hang guard, not a speed target.
    static let paneWait = Duration.seconds(120)
    /// A journal of about 50 MiB: compaction opens and seals every record again, for seconds in a
    /// debug build (each record is one AEAD over half a MiB).
    static let items = 100
    static let secretBytes = 512 * 1024

    /// A tmpfs when there is one: the workload is the compaction, not the disk.
    let dataDir =
        (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path)
        + "/puff-progress-\(UUID().uuidString)"
    let tmuxSocket = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tmux-\(UUID().uuidString)")
        .path

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    func tmux(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(Tmux.path, ["-S", tmuxSocket, "-f", "/dev/null"] + arguments, environment: [:])
    }

    /// The pane's text as a person sees it now.
    func pane() async throws -> [String] {
        try await tmux(["capture-pane", "-p", "-t", "progress"]).output.split(separator: "\n").map(String.init)
    }

    /// Reads the pane until a line fits `wanted`, or `paneWait` passes; the lines last seen.
    func waitForPane(_ what: String, _ wanted: (String) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + Self.paneWait
        var lines: [String] = []
        while ContinuousClock.now < deadline {
            lines = try await pane()
            if lines.contains(where: wanted) { return lines }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(what) not seen in \(Self.paneWait); the pane: \(lines)")
        return lines
    }

    /// `compact [####----]  40%  2,568/6,402 records  1,284/s  0:03 left`
    static func isBar(_ line: String) -> Bool {
        line.wholeMatch(of: /compact \[#*-*\]  \d+%  [\d,]+\/[\d,]+ records  [\d,]+\/s  \d+:\d\d left/) != nil
    }

    @Test func aTerminalSeesTheBarWhileCompactRunsAndNothingOfItAfter() async throws {
        try #require(Tmux.isInstalled, "tmux is missing: make deps installs it (APT_PACKAGES)")
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "progress pass\n").status == 0)
        try await ClientDriver.expectPasses(
            "progress_fill.py", ["\(Self.items)", "\(Self.secretBytes)"], against: puffd)

        // The pane runs compact twice (the second finds as much to open and seal again), then
        // says so and waits, so the pane stays to be read.
        let address = puffd.bus.address
        let script = """
            for run in 1 2; do '\(VaultFlowTests.puffctl)' compact --address '\(address)' || echo "compact failed"; done
            echo progress-test-done; exec cat
            """
        let started = try await ChildProcess.run(
            ClientDriver.python,
            [
                "-c", Tmux.withoutInheritedDescriptors, Tmux.path, "-S", tmuxSocket, "-f", "/dev/null", "new-session",
                "-d",
                "-s", "progress", "-x", "120", "-y", "20", "/bin/sh", "-c", script,
            ],
            environment: [:])
        #expect(started.status == 0, "\(started.output)")
        defer {
            Task { [self] in
                _ = try? await tmux(["kill-server"])
                try? FileManager.default.removeItem(atPath: tmuxSocket)
            }
        }

        let during = try await waitForPane("the progress bar", Self.isBar)
        let bar = during.first(where: Self.isBar)
        #expect(bar != nil)
        let after = try await waitForPane("the end of both runs") { $0 == "progress-test-done" }
        #expect(!after.contains { $0.contains("compact [") || $0.contains("records") }, "the bar is erased: \(after)")
        #expect(after.filter { $0.hasPrefix("reclaimed ") && $0.hasSuffix(" bytes") }.count == 2, "\(after)")
        #expect(!after.contains("compact failed"), "\(after)")
        _ = try await tmux(["kill-server"])
    }

    @Test func ctrlCWhileTheBarIsShownLeavesNoBarOnTheTerminal() async throws {
        try #require(Tmux.isInstalled, "tmux is missing: make deps installs it (APT_PACKAGES)")
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "progress pass\n").status == 0)
        try await ClientDriver.expectPasses(
            "progress_fill.py", ["\(Self.items)", "\(Self.secretBytes)"], against: puffd)

        // The shell survives the Ctrl-C (its trap) and says how compact ended.
        let script = """
            trap 'echo shell-saw-interrupt' INT
            '\(VaultFlowTests.puffctl)' compact --address '\(puffd.bus.address)'; echo "compact-exit-$?"
            echo progress-test-done; exec cat
            """
        let started = try await ChildProcess.run(
            ClientDriver.python,
            [
                "-c", Tmux.withoutInheritedDescriptors, Tmux.path, "-S", tmuxSocket, "-f", "/dev/null", "new-session",
                "-d", "-s", "progress", "-x", "120", "-y", "20", "/bin/sh", "-c", script,
            ],
            environment: [:])
        #expect(started.status == 0, "\(started.output)")
        defer {
            Task { [self] in
                _ = try? await tmux(["kill-server"])
                try? FileManager.default.removeItem(atPath: tmuxSocket)
            }
        }

        _ = try await waitForPane("the progress bar") { $0.hasPrefix("compact [") }
        _ = try await tmux(["send-keys", "-t", "progress", "C-c"])
        let after = try await waitForPane("the end of the interrupted run") { $0 == "progress-test-done" }
        #expect(after.contains("compact-exit-130"), "puffctl ended by SIGINT: \(after)")
        #expect(!after.contains { $0.contains("compact [") || $0.contains("records") }, "the bar is erased: \(after)")
        _ = try await tmux(["kill-server"])
    }

    @Test func aPipeGetsNoBarAndJsonGetsProgressLinesOnStandardError() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "progress pass\n").status == 0)
        try await ClientDriver.expectPasses("progress_fill.py", ["20", "\(Self.secretBytes)"], against: puffd)

        let piped = try await ChildProcess.run(
            "/bin/sh", ["-c", "'\(VaultFlowTests.puffctl)' compact 2>&1 | cat"], environment: puffd.clientEnvironment)
        #expect(piped.status == 0)
        #expect(piped.output.wholeMatch(of: /reclaimed \d+ bytes\n/) != nil, "only the result: \(piped.output)")

        let json = try await ChildProcess.run(
            "/bin/sh", ["-c", "'\(VaultFlowTests.puffctl)' compact --json 2>&1 >/dev/null | cat"],
            environment: puffd.clientEnvironment)
        let lines = json.output.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty && !json.output.contains("\u{1B}"), "\(json.output)")
        let objects = lines.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: [String: Any]]
        }
        #expect(objects.count == lines.count, "one JSON object per line: \(lines)")
        #expect(objects.first?["progress"]?["done"] as? Int == 0)
        let last = objects.last?["progress"]
        #expect(last?["done"] as? Int != nil && last?["done"] as? Int == last?["total"] as? Int, "\(lines)")
        #expect(objects.allSatisfy { $0["progress"]?["operation"] as? String == "compact" })
    }
}
