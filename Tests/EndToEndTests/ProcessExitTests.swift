// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A child that ended is seen to end even while another process holds the socket Foundation
/// watches for it: CI saw a puffd that had exited (a zombie) still "running" 120 s later, because
/// a child spawned beside it by another test had inherited that socket.
///
/// Here the child hands the socket on itself: `sh` leaves a `sleep` behind, which inherits all of
/// its descriptors, the socket included, and outlives the test's hang guard.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct ProcessExitTests {
    /// `sh` starting a `sleep` that outlives every hang guard, printing its pid, and exiting 3.
    static let script = "sleep \(HangGuard.testMinutes * 60 + 600) & echo $!; exit 3"

    @Test func aChildWhoseSocketAnotherProcessHoldsIsSeenToEndWithItsStatus() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("puff-exit-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", Self.script]
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let ended = await poll(limit: HangGuard.step, every: .milliseconds(20)) { process.hasExited }
        let printed = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        let sleeper = Int32(printed.trimmingCharacters(in: .whitespacesAndNewlines))
        defer { if let sleeper { kill(sleeper, SIGKILL) } }
        try #require(ended)
        #expect(process.exitStatus == 3)
        // The premise: Foundation has not seen it end, and will not while the sleep runs.
        #expect(process.isRunning)
    }

    @Test func childProcessReturnsWhenTheChildEndsThoughAnotherProcessHoldsItsSocket() async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", Self.script], environment: ["PATH": "/usr/bin:/bin"])
        if let sleeper = Int32(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(sleeper, SIGKILL) }
        #expect(result.status == 3)
    }
}
