// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Runs a program to completion without blocking a Swift concurrency thread.
///
/// Output goes to temporary files rather than pipes, so a chatty child can never fill a pipe and
/// stall; `Process.waitUntilExit()` is avoided because it spins a run loop, which hangs on a
/// cooperative thread.
public enum ChildProcess {
    /// What a finished child left behind.
    public struct Result: Sendable {
        public var status: Int32
        /// Standard output and standard error, interleaved in the order written.
        public var output: String
    }

    /// Runs `executable` with `arguments`, feeding `input` on standard input.
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String],
        input: Data = Data(),
        timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory
        let outputURL = directory.appendingPathComponent("puff-child-\(UUID().uuidString).out")
        let inputURL = directory.appendingPathComponent("puff-child-\(UUID().uuidString).in")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        try input.write(to: inputURL)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: inputURL)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = output
        process.standardError = output
        let status = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            Task {
                try? await Task.sleep(for: timeout)
                kill(pid, SIGKILL)  // harmless if it already finished
            }
        }
        try? output.close()
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return Result(status: status, output: text)
    }
}
