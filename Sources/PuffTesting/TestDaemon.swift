public import Foundation
import PuffDBus
// SPDX-License-Identifier: Apache-2.0
public import PuffProtocol

/// The built `puffd`, running on a ``TestBus`` for one test (gnome-keyring's `test-service.c`
/// does the same with its daemon binary).
public final class TestDaemon: @unchecked Sendable {
    // @unchecked: all stored properties are set in init and only read afterwards.
    public let bus: TestBus
    private let process: Process
    private let logURL: URL
    /// A private HOME for the daemon and the clients of this test.
    public let home: URL

    /// The `puffd` built beside the test bundle.
    public static var executablePath: String {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let sibling = bundleDirectory.appendingPathComponent("puffd").path
        if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        let procExe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: procExe).deletingLastPathComponent().appendingPathComponent("puffd").path
    }

    /// Starts a bus and `puffd` on it, and returns once `puffd` owns `busName` and
    /// ``controlName`` and has finished starting (its vault read, `--unlock-fd` and credentials
    /// tried: a call that needs the vault is answered); `environment` adds
    /// to the daemon's (for example `DISPLAY` for a pinentry); `input` is written to its standard
    /// input, which is then closed (`--unlock-fd 0`). A `launcher` (program and arguments) runs
    /// first and is given the daemon's path and arguments to run in its place, as systemd's
    /// socket activation does.
    public init(
        arguments: [String] = [], busName: String = SecretServiceContract.busName, on existingBus: TestBus? = nil,
        environment: [String: String] = [:], input: Data? = nil, launcher: [String] = []
    ) async throws {
        bus = try existingBus ?? TestBus()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("puff-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        logURL = home.appendingPathComponent("puffd.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? Self.executablePath)
        // Without a vault of their own, tests get today's behaviour: an ephemeral, unlocked vault.
        let vault = arguments.contains { $0.hasPrefix("--vault") || $0.hasPrefix("--data-dir") } ? [] : ["--ephemeral"]
        // Nor do they hear the machine's logind: a test that wants one brings a fake on a bus of its own.
        let systemBus =
            arguments.contains { $0.hasPrefix("--system-bus-address") }
            ? [] : ["--system-bus-address", "unix:path=\(home.path)/no-system-bus"]
        // Daemons of concurrent tests would take each other's login socket in the runtime folder.
        let loginSocket = arguments.contains { $0.hasPrefix("--login-socket") } ? [] : ["--login-socket", "none"]
        process.arguments =
            (launcher.isEmpty ? [] : Array(launcher.dropFirst()) + [Self.executablePath])
            + ["--address", bus.address, "--bus-name", busName, "--log-level", "debug"] + vault + systemBus
            + loginSocket + arguments
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardOutput = log
        process.standardError = log
        // The input is a file, not a pipe written after the start: its end is there before puffd
        // reads (a pipe's end came only once run() returned, which took over the 5 s
        // --unlock-fd allows while CI's other tests were starting processes).
        if let input {
            let inputFile = home.appendingPathComponent("stdin").path
            guard
                FileManager.default.createFile(
                    atPath: inputFile, contents: input, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forReadingAtPath: inputFile)
            else { throw CocoaError(.fileWriteUnknown) }
            process.standardInput = handle
        }
        try process.run()
        try await waitForOwner(busName)
        // The control interface has a connection and a name of its own, taken second.
        try await waitForOwner(Self.controlName)
        try await waitUntilStarted(busName)
    }

    /// puffd owns its names before it reads the vault; calls that need it wait until start-up is
    /// done. One such call, answered, says start-up is over (its answer does not matter).
    private func waitUntilStarted(_ name: String) async throws {
        let probe = try await BusConnection.connect(address: bus.address)
        defer { probe.close() }
        _ = try? await probe.call(
            .methodCall(
                destination: name, path: ObjectPath(SecretServiceContract.servicePath)!,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string(SecretServiceContract.Interface.service), .string("Collections")]),
            timeout: HangGuard.step)
    }

    /// The name puffd's control connection owns.
    public static let controlName = ControlContract.busName

    deinit {
        // Only while it runs: a reaped pid may already name another test's process.
        if !process.hasExited { kill(process.processIdentifier, SIGTERM) }
        try? FileManager.default.removeItem(at: home)
    }

    /// Whether the daemon process is still alive (as the kernel says: ``Foundation/Process/exitStatus``).
    public var isRunning: Bool { !process.hasExited }

    /// The daemon's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the daemon logged so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The environment a client of this daemon runs with.
    public var clientEnvironment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    /// Waits (``TestBus/waitForOwner(_:while:)``) until the daemon owns `name`.
    private func waitForOwner(_ name: String) async throws {
        let process = self.process
        let owned = try await bus.waitForOwner(name) { !process.hasExited }
        guard !process.hasExited else { throw TestDaemonError.exited(log) }
        guard owned else { throw TestDaemonError.neverOwnedName(log) }
    }

    /// Sends SIGTERM and waits (at most ``HangGuard/step``) for the daemon to exit; returns its
    /// exit status, or -1 when it is still running.
    public func terminate() async -> Int32 {
        process.terminate()
        let process = self.process
        _ = await poll(limit: HangGuard.step, every: .milliseconds(25)) { process.hasExited }
        return process.exitStatus ?? -1
    }
}

/// Why a test daemon did not come up.
public enum TestDaemonError: Error, CustomStringConvertible {
    case exited(String)
    case neverOwnedName(String)

    public var description: String {
        switch self {
        case .exited(let log): "puffd exited during start-up:\n\(log)"
        case .neverOwnedName(let log): "puffd did not own its name within \(HangGuard.step):\n\(log)"
        }
    }
}
