// SPDX-License-Identifier: Apache-2.0
public import Foundation
import PuffSystem

/// A private swtpm (Debian's swtpm) on a Unix socket in a fresh temp folder, for one test; stopped and
/// removed when the value goes away. Each instance has its own TPM state, so its seeds differ from any
/// other's: a blob sealed by one does not load in another.
public final class SoftwareTPM {
    /// Where Debian installs the tools these tests drive.
    public static let swtpm = "/usr/bin/swtpm"
    public static let tools = ["/usr/bin/tpm2_getcap", "/usr/bin/tpm2_pcrextend"]
    /// Whether tests with a swtpm run here: swtpm and tpm2-tools are installed (`make deps` installs
    /// them), or CI requires them (``TestBus/canRun(needing:)``).
    public static var canRun: Bool { TestBus.canRun(needing: [swtpm] + tools) }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let folder: URL
    public let socket: String
    private var pid: pid_t = 0
    private var watchdog: DispatchWorkItem?

    /// The TCTI that reaches this TPM (tcti-swtpm finds the control socket at `socket.ctrl`).
    public var tcti: String { "swtpm:path=\(socket)" }

    /// Starts swtpm; it is killed after `watchdog` whatever happens (see below): a test that drives
    /// puffd through many steps gives ``HangGuard/driver``.
    public init(watchdog limit: Duration = HangGuard.driver) throws {
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
        // the blocked call fail and the test report it. It counts from here over the whole test,
        // not one wait, so it is a driver's guard: with a step's, a run at load 25 had swtpm killed
        // under four TPM2DeviceTests still working ("Could not load tcti").
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .seconds(Int(limit.components.seconds)), execute: watchdog)
        self.watchdog = watchdog
    }

    deinit {
        watchdog?.cancel()
        // SIGKILL: swtpm's daemon did not always stop on SIGTERM; its state is thrown away anyway.
        if pid > 0 { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Kills swtpm and returns once it has exited: its sockets stay in the folder with nobody listening.
    /// Throws if it is still there after ``HangGuard/step`` (a hang guard: SIGKILL takes milliseconds).
    public func stop() throws {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        // swtpm daemonised, so it is not our child to wait for: watch it go (or turn zombie, its
        // descriptors closed, where nothing reaps orphans).
        let deadline = ContinuousClock.now + HangGuard.step
        while !Self.hasExited(pid) {
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "swtpm (pid \(pid)) still runs \(HangGuard.step) after SIGKILL")
            }
            usleep(10_000)
        }
        pid = 0
    }

    /// Whether `pid` is gone or a zombie.
    private static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "pid (comm) S …": the state follows the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Runs a tpm2-tools command against this TPM; returns its stdout.
    @discardableResult
    public func tool(_ name: String, _ arguments: [String]) throws -> String {
        try run("/usr/bin/\(name)", arguments, environment: ["TPM2TOOLS_TCTI": tcti, "TSS2_LOG": "all+NONE"])
    }

    /// The transient objects and sessions loaded in this TPM now (`tpm2_getcap handles-transient`,
    /// `handles-loaded-session`): none once a call is over, as swtpm holds only 3 objects.
    public func loadedHandles() throws -> [String] {
        try ["handles-transient", "handles-loaded-session"].flatMap { capability in
            try tool("tpm2_getcap", [capability]).split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("- 0x") }
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module leaves out:
    /// the child closes every descriptor from the given one before exec, atomically with the spawn.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 =
        {
            // RTLD_DEFAULT is the null handle in glibc.
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
                fatalError("glibc without posix_spawn_file_actions_addclosefrom_np (2.34 or later is needed)")
            }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

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
        // Nothing else of the test process: a swtpm daemon that kept another test's TPM connection
        // open would keep that swtpm, which serves one connection at a time, from ever seeing it close.
        guard Self.addCloseFrom(&actions, 3) == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np failed")
        }
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "\(path): posix_spawn failed (\(spawned))") }
        let status = try SystemCalls.waitForExit(child)
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errorsFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(path) \(arguments) exited with status \(status): \(message)")
        }
        return (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
    }
}
