// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The built `puffd` on a private `dbus-daemon` against clients that push it: a hostile one that
/// sends huge messages and opens thousands of sessions and prompts, and a long-lived one that keeps
/// a collection's `Items` while another client writes a thousand items.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct HostileClientTests {
    @Test func aHostileClientIsRefusedWithNamedLimitsAndOthersKeepBeingServed() async throws {
        let daemon = try await TestDaemon()
        let pid = daemon.processIdentifier
        // The driver checks that org.freedesktop.secrets belongs to this process before and after
        // every case (GetConnectionUnixProcessID), so a restarted daemon cannot pass.
        let passed = try await ClientDriver.expectPasses("hostile_client.py", ["--pid", String(pid)], against: daemon)
        #expect(passed >= 23)
        #expect(daemon.isRunning && daemon.processIdentifier == pid, "puffd is not the process the test started")
        #expect(!daemon.log.contains("Fatal error"))
    }

    @Test func aLongLivedClientConvergesOnItemsWhileAnotherCreatesAThousand() async throws {
        let daemon = try await TestDaemon()
        let pid = daemon.processIdentifier
        let passed = try await ClientDriver.expectPasses("items_convergence.py", against: daemon)
        #expect(passed >= 6)
        #expect(daemon.isRunning && daemon.processIdentifier == pid, "puffd is not the process the test started")
        #expect(!daemon.log.contains("Fatal error"))
    }
}
