// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The login socket handed over by systemd (`puff-login.socket` starting `puffd.service`, socket
/// activation): the built puffd, started by socket_activate.py as systemd starts it, answers the
/// PAM module's request on the descriptor it was passed, and leaves the socket file, which is
/// systemd's, in place. Descriptors whose LISTEN_PID names another process are not taken. The
/// client runs as the test does, and only root (the PAM module) may create `login`: the answering
/// test needs root, as in CI.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct SocketActivationTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-activate-\(UUID().uuidString)")
    var socket: String { folder.appendingPathComponent("run/login.socket").path }
    var vault: String { folder.appendingPathComponent("vault").path }

    /// puffd started with a listening socket on descriptor 3; no `--login-socket` of its own
    /// (TestDaemon gives `none`), so the passed socket is the only one it could serve.
    func daemon(forAnotherProcess: Bool = false) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let launcher =
            [ClientDriver.python, ClientDriver.directory.appendingPathComponent("socket_activate.py").path, socket]
            + (forAnotherProcess ? ["--for-another-process"] : []) + ["--"]
        return try await TestDaemon(arguments: ["--data-dir", vault, "--kdf", "interactive"], launcher: launcher)
    }

    func send(_ action: String, _ input: String) async throws -> String {
        let run = try await ChildProcess.run(
            ClientDriver.python,
            [ClientDriver.directory.appendingPathComponent("login_socket.py").path, socket, action],
            environment: [:], input: Data(input.utf8))
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: getuid() == 0))
    func puffdAnswersLoginRequestsOnTheSocketSystemdPassesAndLeavesItsFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(
            puffd.log.contains("The login socket came from systemd (socket activation)"), "\(puffd.log.suffix(1500))")
        #expect(try await send("login", "activated pw") == "1", "\(puffd.log.suffix(1500))")
        let lock = try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: puffd.clientEnvironment)
        #expect(lock.status == 0, "\(lock.output)")
        #expect(try await send("login", "not it") == "2")
        #expect(try await send("login", "activated pw") == "0")
        #expect(await puffd.terminate() == 0)
        var info = stat()
        #expect(lstat(socket, &info) == 0, "the socket file is systemd's: puffd leaves it")
    }

    @Test func socketsMeantForAnotherProcessAreNotTaken() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(forAnotherProcess: true)
        #expect(
            puffd.log.contains("Not taking the sockets passed at start: LISTEN_PID"), "\(puffd.log.suffix(1500))")
        #expect(!puffd.log.contains("Listening for login passwords"), "\(puffd.log.suffix(1500))")
    }
}
