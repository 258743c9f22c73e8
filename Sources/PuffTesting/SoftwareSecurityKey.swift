// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// The software FIDO2 authenticator (Tests/EndToEndTests/Clients/fido2_authenticator.py,
/// docs/design/unlock-slots.md §3 fido2) on a socket in a scratch folder, run by Debian's
/// `/usr/bin/python3` (a python elsewhere on PATH may lack python3-fido2). The PIN reaches it on
/// standard input, never on its command line. Stopped by ``stop()``; a test starts its keys
/// through a ``SecurityKeyBench``, which stops them and removes their folder.
public final class SoftwareSecurityKey: @unchecked Sendable {
    /// What the authenticator does when a transaction needs a touch.
    public enum Touch: String, Sendable {
        /// Touched at once.
        case auto
        /// Refused on the key (CTAP2 OPERATION_DENIED).
        case refuse
        /// Touched only by ``SoftwareSecurityKey/touch()``: it logs `touch?` and waits (sending
        /// KEEPALIVE) until then (logging `touched`) or until the platform sends CANCEL.
        case wait
    }

    public enum Failure: Error, CustomStringConvertible {
        case notStarted(log: String)

        public var description: String {
            switch self {
            case .notStarted(let log): "fido2_authenticator.py did not start: \(log.suffix(400))"
            }
        }
    }

    public static let script = TestBus.repositoryRoot.appendingPathComponent(
        "Tests/EndToEndTests/Clients/fido2_authenticator.py")

    /// Another seed than the default one: its authenticator knows none of the default's credentials.
    public static let otherSeed = String(repeating: "11", count: 32)

    private let process = Process()
    /// The socket's path.
    public let socket: String
    /// Standard error of the authenticator: a line `cancel` per CTAPHID CANCEL, `touch?` per wait,
    /// `touched` per wait ended by ``touch()``.
    public let log: URL

    /// The device string puff's own code takes for this authenticator.
    public var device: String { "unix:" + socket }

    /// Starts an authenticator with `seed` (64 hex digits; nil: all zeros) and, when `pin` is given,
    /// that PIN set; returns once it listens.
    public init(in folder: URL, name: String, seed: String? = nil, pin: String? = nil, touch: Touch = .auto)
        async throws
    {
        socket = folder.appendingPathComponent("\(name).sock").path
        log = folder.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var arguments = [Self.script.path, socket, "--touch", touch.rawValue]
        if let seed { arguments += ["--seed", seed] }
        if pin != nil { arguments.append("--pin-stdin") }
        let output = Pipe()
        let input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = input
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(((pin ?? "") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let first = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: TestBus.firstLine(of: output)) }
        }
        guard first == "ready" else {
            stop()
            throw Failure.notStarted(log: logged())
        }
    }

    /// Touches the key (SIGUSR1): ends a wait for a touch of a ``Touch/wait`` key. A touch while
    /// nothing waits is dropped, as a real key ignores one: wait for the log's `touch?` first.
    public func touch() {
        kill(process.processIdentifier, SIGUSR1)
    }

    /// The authenticator's process id (for a driver that touches the key itself with SIGUSR1).
    public var processIdentifier: Int32 { process.processIdentifier }

    /// SIGKILL: nothing of the authenticator's state needs to survive, and a signal it might
    /// inherit as ignored must not leave it running.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// What the authenticator wrote to standard error so far.
    public func logged() -> String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    /// How many lines `line` the log has so far.
    public func logCount(_ line: String) -> Int {
        logged().split(separator: "\n").filter { $0 == line }.count
    }

    /// Whether the log held `count` lines `line` within `limit` (polled every 20 ms).
    public func waitForLogLine(_ line: String, count: Int = 1, within limit: Duration = HangGuard.step) async throws
        -> Bool
    {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if logCount(line) >= count { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
