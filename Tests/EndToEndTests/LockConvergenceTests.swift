// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A lock change tells each connection about exactly the items whose properties it read (issue 27
/// item 2, secret-service.md §7): real libsecret holding 1,000 item proxies converges when another
/// client unlocks, locks and unlocks their collection, and a client holding none receives no item
/// signal. Checked both ways: per-item broadcasts fail the bystander's case, collection-only
/// signals fail the holder's.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LockConvergenceTests {
    @Test func aLibsecretHolderConvergesOnLockChangesAndABystanderGetsNoItemSignal() async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "puff-lockconv-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDir) }
        let daemon = try await TestDaemon(arguments: ["--data-dir", dataDir.path, "--kdf", "interactive"])
        let pid = daemon.processIdentifier
        let passed = try await ClientDriver.expectPasses(
            "lock_convergence.py", ["--puffctl", VaultFlowTests.puffctl, "--items", "1000"], against: daemon)
        #expect(passed == 14)
        #expect(daemon.isRunning && daemon.processIdentifier == pid, "puffd is not the process the test started")
        _ = await daemon.terminate()
    }
}
