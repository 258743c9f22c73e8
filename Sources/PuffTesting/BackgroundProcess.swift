// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// A long-running helper program for one test (xdg-desktop-portal, a stand-in service): its
/// output goes to a log file, and it is killed by its pid when the value is released.
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: all stored properties are set in init and only read afterwards.
    private let process: Process
    /// Where the program's standard output and error go.
    public let logURL: URL

    /// Starts `executable` with `arguments` in `environment` (nothing inherited), its output
    /// appended to `log`, its standard input empty.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String], log: URL) throws {
        logURL = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    deinit {
        // SIGKILL, not SIGTERM: the child inherits the test runner's signal mask, which blocks
        // SIGTERM (TestBus), and these helpers have nothing to flush. Only while it runs: a
        // reaped pid may already name another test's process.
        if !process.hasExited { kill(process.processIdentifier, SIGKILL) }
    }

    /// Whether the program is still running (as the kernel says: ``Foundation/Process/exitStatus``).
    public var isRunning: Bool { !process.hasExited }

    /// The program's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the program wrote so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Returns once the program owns `name` on `bus`; throws when it exits first or does not
    /// take the name within ``HangGuard/step``.
    public func waitForOwner(_ name: String, on bus: TestBus) async throws {
        let process = self.process
        let owned = try await bus.waitForOwner(name) { !process.hasExited }
        guard !process.hasExited else { throw BackgroundProcessError.exited(name: name, log: log) }
        guard owned else { throw BackgroundProcessError.neverOwnedName(name, log: log) }
    }

    /// Kills the program and waits (at most ``HangGuard/step``) until it is gone.
    public func stop() async {
        if !process.hasExited { kill(process.processIdentifier, SIGKILL) }
        let process = self.process
        _ = await poll(limit: HangGuard.step, every: .milliseconds(25)) { process.hasExited }
    }
}

/// Why a background program did not come up.
public enum BackgroundProcessError: Error, CustomStringConvertible {
    case exited(name: String, log: String)
    case neverOwnedName(String, log: String)

    public var description: String {
        switch self {
        case .exited(let name, let log): "exited before owning \(name):\n\(log.suffix(3000))"
        case .neverOwnedName(let name, let log): "did not own \(name) within \(HangGuard.step):\n\(log.suffix(3000))"
        }
    }
}
