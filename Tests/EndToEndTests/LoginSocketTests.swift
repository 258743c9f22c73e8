// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The login socket the PAM module speaks to (docs/pam.md), driven by a client that writes the
/// same bytes: the first login creates `login` under the login password, later ones unlock it, a
/// wrong password leaves it locked, a change re-keys it; malformed requests get no answer. And
/// `--unlock-fd` opens `login` at start.
///
/// Only root is believed to be the PAM module; a process of the user may only unlock (item 7 of
/// issue 24, tested with a daemon of a scratch user in pam_flow.py). The client runs as the test
/// does, so the create-and-change test needs root, as in CI: run as a user, the client is that
/// user's process and its create and change requests are refused.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct LoginSocketTests {
    static let asRoot = getuid() == 0

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-login-\(UUID().uuidString)")
    var socketFolder: URL { folder.appendingPathComponent("run") }
    var socket: String { socketFolder.appendingPathComponent("login.socket").path }
    var vault: String { folder.appendingPathComponent("vault").path }

    func daemon() async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try await TestDaemon(
            arguments: ["--data-dir", vault, "--kdf", "interactive", "--login-socket", socketFolder.path])
    }

    func send(_ action: String, _ input: String = "", raw: String? = nil) async throws -> String {
        let run = try await ChildProcess.run(
            ClientDriver.python,
            [ClientDriver.directory.appendingPathComponent("login_socket.py").path, socket, action]
                + (raw.map { [$0] } ?? []),
            environment: [:], input: Data(input.utf8))
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func puffctl(_ arguments: [String], input: String = "", on puffd: TestDaemon) async throws -> Int32 {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8)
        ).status
    }

    @Test(.enabled(if: asRoot)) func theFirstLoginCreatesLoginAndLaterOnesUnlockItOnlyWithTheRightPassword()
        async throws
    {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        var info = stat()
        #expect(lstat(socketFolder.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try await send("login", "pw") == "1", "\(puffd.log.suffix(1500))")
        #expect(try await puffctl(["lock"], on: puffd) == 0)
        #expect(try await send("login", "not it") == "2")
        #expect(try await puffctl(["status", "--json"], on: puffd) == 0)
        #expect(try await send("login", "pw") == "0")
        #expect(try await send("change", "pw\nnew pw") == "0")
        #expect(try await send("change", "pw\nother") == "2", "the old password no longer opens it")
        #expect(try await puffctl(["lock"], on: puffd) == 0)
        #expect(try await puffctl(["unlock", "login", "--stdin"], input: "pw\n", on: puffd) == 2)
        #expect(try await puffctl(["unlock", "login", "--stdin"], input: "new pw\n", on: puffd) == 0)
        #expect(!puffd.log.contains("new pw"))
    }

    @Test func malformedRequestsAreClosedWithoutAnAnswer() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        // Whole requests but for one flaw: a wrong magic; a length over 1024; an unknown
        // operation; a login with a second field.
        for raw in [
            "58585858" + "4c" + "0100000061" + "00000000", "505546314c01040000",
            "5055463158" + "0100000061" + "00000000",
            "505546314c" + "0100000061" + "0100000062",
        ] {
            #expect(try await send("raw", raw: raw) == "closed", "\(raw)")
        }
        #expect(puffd.log.contains("Refused a malformed login request"))
        #expect(await !FileManager.default.fileExists(atPath: vault + "/catalog"), "nothing was created")
    }

    @Test func unlockFDCreatesLoginAtStartAndUnlocksItAfterARestart() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let arguments = ["--data-dir", vault, "--kdf", "interactive", "--unlock-fd", "0"]
        let first = try await TestDaemon(arguments: arguments, input: Data("fd pass".utf8))
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                first.log.contains("login created with the passcode from --unlock-fd")
            }, "\(first.log.suffix(1500))")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=fd", "service", "unlock-fd"],
            environment: first.clientEnvironment, input: Data("fd-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        _ = await first.terminate()
        let second = try await TestDaemon(arguments: arguments, input: Data("fd pass".utf8))
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "unlock-fd"], environment: second.clientEnvironment)
        #expect(lookup.output == "fd-secret", "no prompt was needed")
    }

    /// Issue 24 item 22: `--unlock-fd` kept a trailing newline, so `echo pass | puffd --unlock-fd 0`
    /// tried "pass\n" on a collection whose passcode `puffctl init --stdin` had set to "pass".
    /// One rule now: exactly one trailing newline is dropped, as `--stdin` and credentials do.
    @Test func aPasscodeOnUnlockFDLosesOneTrailingNewlineAsOnStdin() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = try await TestDaemon(arguments: ["--data-dir", vault, "--kdf", "interactive"])
        let initialize = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: first.clientEnvironment,
            input: Data("line pass\n".utf8))
        #expect(initialize.status == 0, "\(initialize.output)")
        _ = await first.terminate()
        let second = try await TestDaemon(
            arguments: ["--data-dir", vault, "--kdf", "interactive", "--unlock-fd", "0"],
            input: Data("line pass\n".utf8))
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                second.log.contains("login unlocked with the passcode from --unlock-fd")
            }, "\(second.log.suffix(1500))")
    }
}
