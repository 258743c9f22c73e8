// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// Auto-lock in the built `puffd` (issue 14, "Done when"): `SIGUSR1`, the timer options, and
/// logind's signals from a fake `org.freedesktop.login1` on a second private bus standing in
/// for the system bus. Locks are checked with `puffctl collection list --json` and `secret-tool`.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct AutoLockFlowTests {
    static let puffctl = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent()
        .appendingPathComponent("puffctl").path
    static let passcode = "auto pass\n"

    /// A daemon with a file vault in its private home (removed with it), not initialized yet.
    func daemon(_ arguments: [String] = []) async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--vault", "file", "--kdf", "interactive", "--prompter", "none"] + arguments)
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            Self.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Each collection's `locked` as `puffctl collection list --json` shows it.
    func lockedStates(_ daemon: TestDaemon) async throws -> [String: Bool] {
        let result = try await puffctl(daemon, ["collection", "list", "--json"])
        #expect(result.status == 0, "\(result.output)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return Dictionary(
            uniqueKeysWithValues: array.map { ($0["id"] as? String ?? "", $0["locked"] as? Bool ?? false) })
    }

    /// Whether `login` is locked.
    func loginLocked(_ daemon: TestDaemon) async throws -> Bool {
        let states = try await lockedStates(daemon)
        return try #require(states["login"] as Bool?)
    }

    /// Unlocks `login` with `puffctl unlock`.
    func unlock(_ daemon: TestDaemon) async throws {
        let result = try await puffctl(daemon, ["unlock", "--stdin"], input: Self.passcode)
        #expect(result.status == 0, "\(result.output)")
    }

    /// Waits until the daemon has logged `text` `count` times (its log lines are the hold points of
    /// the checks that something did not happen).
    func logged(_ daemon: TestDaemon, _ text: String, times count: Int = 1) async -> Bool {
        await poll(limit: HangGuard.step) { daemon.log.components(separatedBy: text).count - 1 >= count }
    }

    @Test func sigusr1LocksEveryCollectionAndTheDaemonGoesOn() async throws {
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode).status == 0)
        #expect(
            try await puffctl(puffd, ["collection", "create", "Work", "--stdin"], input: "work pass\n").status == 0)
        let stored = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=usr1", "app", "usr1"], environment: puffd.clientEnvironment,
            input: Data("usr1-secret".utf8))
        #expect(stored.status == 0, "\(stored.output)")
        #expect(try await lockedStates(puffd) == ["login": false, "Work": false])

        kill(puffd.processIdentifier, SIGUSR1)
        #expect(await logged(puffd, "reason=SIGUSR1"))
        #expect(puffd.isRunning)
        #expect(try await lockedStates(puffd) == ["login": true, "Work": true])
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "app", "usr1"], environment: puffd.clientEnvironment)
        #expect(!lookup.output.contains("usr1-secret"))

        // TestDaemon points the logind watcher at a socket that does not exist.
        #expect(await logged(puffd, "No system bus"))
        let lines = puffd.log.split(separator: "\n").filter { $0.contains("system bus") || $0.contains("logind") }
        #expect(lines.count == 1, "one line says no system bus, and nothing fails: \(lines)")
    }

    @Test func theTimerOptionsLockAfterIdleAndMaximumTimes() async throws {
        var puffd = try await daemon(["--lock-after-idle", "1"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode).status == 0)
        #expect(await logged(puffd, "reason=idle"))
        #expect(try await loginLocked(puffd))
        _ = await puffd.terminate()

        puffd = try await daemon(["--lock-after-idle", "0", "--lock-after", "1"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode).status == 0)
        #expect(await logged(puffd, "reason=unlocked for the maximum time"))
        #expect(try await loginLocked(puffd))

        let refused = try await ChildProcess.run(
            TestDaemon.executablePath, ["--lock-after=-1"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("--lock-after-idle and --lock-after take seconds, 0 or more"))
    }
}
