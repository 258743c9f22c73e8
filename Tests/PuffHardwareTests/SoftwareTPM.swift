// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting

/// A private swtpm (Debian's swtpm) on a Unix socket in a fresh temp folder, for one test; stopped and
/// removed when the value goes away. Each instance has its own TPM state, so its seeds differ from any
/// other's: a blob sealed by one does not load in another.
final class SoftwareTPM {
    /// Where Debian installs the tools these tests drive.
    static let swtpm = "/usr/bin/swtpm"
    static let tools = ["/usr/bin/tpm2_getcap", "/usr/bin/tpm2_pcrextend"]
    /// Whether swtpm and tpm2-tools are installed (`make deps` installs them).
    static var isInstalled: Bool {
        ([swtpm] + tools).allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let folder: URL
    let socket: String
    private var pid: pid_t = 0
    private var watchdog: DispatchWorkItem?

    /// The TCTI that reaches this TPM (tcti-swtpm finds the control socket at `socket.ctrl`).
    var tcti: String { "swtpm:path=\(socket)" }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tpm-\(UUID().uuidString)")
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(
            at: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        socket = folder.appendingPathComponent("sock").path
        let pidFile = folder.appendingPathComponent("pid").path
        // --daemon returns once both sockets listen, so no polling for readiness is needed.
        try run(
            Self.swtpm,
            [
                "socket", "--tpm2", "--server", "type=unixio,path=\(socket)", "--ctrl",
                "type=unixio,path=\(socket).ctrl", "--tpmstate", "dir=\(state.path)", "--flags", "startup-clear",
                "--daemon", "--pid", "file=\(pidFile)",
            ])
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(description: "swtpm wrote no pid")
        }
        self.pid = pid
        // A hang guard: ESAPI and tpm2-tools block on swtpm's socket with no timeout, and a blocked
        // call cannot be cancelled, so a hung swtpm would hang the whole test run. Killed, it makes
        // the blocked call fail and the test report it (one unexplained hang was seen once, TPM2SealerTests).
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .seconds(Int(HangGuard.step.components.seconds)), execute: watchdog)
        self.watchdog = watchdog
    }

    deinit {
        watchdog?.cancel()
        // SIGKILL: swtpm's daemon did not always stop on SIGTERM; its state is thrown away anyway.
        if pid > 0 { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs a tpm2-tools command against this TPM; returns its stdout.
    @discardableResult
    func tool(_ name: String, _ arguments: [String]) throws -> String {
        try run("/usr/bin/\(name)", arguments, environment: ["TPM2TOOLS_TCTI": tcti, "TSS2_LOG": "all+NONE"])
    }

    /// The transient objects loaded in this TPM now (`tpm2_getcap handles-transient`).
    func transientHandles() throws -> [String] {
        try tool("tpm2_getcap", ["handles-transient"]).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("- 0x") }
    }

    /// The sessions loaded in this TPM now (`tpm2_getcap handles-loaded-session`).
    func loadedSessions() throws -> [String] {
        try tool("tpm2_getcap", ["handles-loaded-session"]).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("- 0x") }
    }

    /// Runs a tool with its output in files of `folder` and waits for it with waitpid: swtpm's daemon keeps
    /// the descriptors it was given, so pipes would never reach their end.
    @discardableResult
    private func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let name = UUID().uuidString
        let outputFile = folder.appendingPathComponent("\(name).out").path
        let errorsFile = folder.appendingPathComponent("\(name).err").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorsFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "\(path): posix_spawn failed (\(spawned))") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errorsFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(path) \(arguments) exited with status \(status): \(message)")
        }
        return (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
    }
}
