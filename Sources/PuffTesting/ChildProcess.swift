// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Runs a program to completion without blocking a Swift concurrency thread.
///
/// Output goes to a temporary file rather than a pipe, so a chatty child can never fill a pipe and
/// stall; input (passcodes, secrets) goes through a pipe fed from a Dispatch thread, so it never
/// touches a file. `Process.waitUntilExit()` is avoided because it spins a run loop, which hangs
/// on a cooperative thread.
public enum ChildProcess {
    /// What a finished child left behind.
    public struct Result: Sendable {
        public var status: Int32
        /// Standard output and standard error, interleaved in the order written.
        public var output: String
        /// The same bytes undecoded, for output that need not be UTF-8 (a secret `puffctl get` prints).
        public var bytes: Data
    }

    /// Runs `executable` with `arguments`, feeding `input` on standard input.
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String],
        input: Data = Data(),
        timeout: Duration = HangGuard.step
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory
        let outputURL = directory.appendingPathComponent("puff-child-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let inputPipe = Pipe()
        let output = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = inputPipe
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let pid = process.processIdentifier
        // A child that exits without reading its input must not leave the writer blocked,
        // nor end the test runner with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let writer = inputPipe.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: input)
            try? writer.close()
        }
        let killer = Task {
            try? await Task.sleep(for: timeout)
            // Only while it runs: once reaped, its pid may already name another test's puffd or
            // bus (pid_max is 32,768 here, and a test run wraps it). An ended child is not reaped
            // before Foundation sees it end (``Foundation/Process/exitStatus``).
            guard !process.hasExited else { return }
            kill(pid, SIGKILL)
        }
        // Not Foundation's termination handler: it runs only once Foundation sees the child end,
        // which another child holding its socket delays (``Foundation/Process/exitStatus``).
        let status = await process.exitStatusWhenEnded()
        killer.cancel()
        try? output.close()
        let bytes = (try? Data(contentsOf: outputURL)) ?? Data()
        return Result(status: status, output: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }
}
