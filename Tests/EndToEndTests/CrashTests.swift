// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// What a crash or a full disk may cost: nothing that was acknowledged. The drivers start the
/// built `puffd` themselves on a file vault, because they kill and restart it.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct CrashTests {
    let bus: TestBus
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-crash-\(UUID().uuidString)")

    init() throws {
        bus = try TestBus()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    var arguments: [String] {
        let puffd = TestDaemon.executablePath
        let puffctl = URL(fileURLWithPath: puffd).deletingLastPathComponent().appendingPathComponent("puffctl").path
        return ["--puffd", puffd, "--puffctl", puffctl, "--data-dir", folder.appendingPathComponent("vault").path]
    }

    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": folder.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    /// The log of every `puffd` run of the test, for a failure's message.
    func logs() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".log") }.compactMap {
            try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
        }.joined().suffix(3000).description
    }

    @Test func fiftyKillsDuringWritesFromThreeClientsLoseNoAcknowledgedWrite() async throws {
        let passed = try await ClientDriver.expectPasses(
            "crash_rounds.py", arguments + ["--rounds", "50", "--writers", "3"], environment: environment,
            timeout: HangGuard.driver)
        #expect(passed == 51, "every round and the final check: \(logs())")
        try? FileManager.default.removeItem(at: folder)
    }

    /// Eight clients at once: their appends are flushed in groups (design core-reshaped §6), and a
    /// kill in the middle of a group still loses nothing acknowledged. Each round also fails unless
    /// puffd's debug log shows a flush of more than one record, so grouping really happened.
    @Test func killsDuringGroupedWritesFromEightClientsLoseNoAcknowledgedWrite() async throws {
        let passed = try await ClientDriver.expectPasses(
            "crash_rounds.py", arguments + ["--rounds", "20", "--writers", "8", "--check-grouping"],
            environment: environment, timeout: HangGuard.driver)
        #expect(passed == 21, "every round and the final check: \(logs())")
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func aWriteRefusedForAFullDiskGetsAnErrorAndLosesNothingBeforeIt() async throws {
        let passed = try await ClientDriver.expectPasses("full_disk.py", arguments, environment: environment)
        #expect(passed == 9, "every case: \(logs())")
        try? FileManager.default.removeItem(at: folder)
    }
}
