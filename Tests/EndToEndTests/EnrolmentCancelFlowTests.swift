// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl slot add … fido2` stopped with Ctrl-C while the security key waits for a touch, through
/// the built binaries (issue 26, docs/unlock-slots.md): puffd sees puffctl leave the bus and
/// cancels the key's wait (CTAPHID CANCEL) rather than holding the key up to its own 2 minutes,
/// and no slot is added.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct EnrolmentCancelFlowTests {
    /// puffd's own limit on a wait for a touch is 120 s: a CANCEL well before it is the departure's.
    static let beforePuffdsOwnLimit = Duration.seconds(60)

    @Test func stoppingPuffctlWhileTheKeyWaitsForAnEnrolmentTouchEndsTheKeysWait() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        // Never touched: it waits until the platform sends CTAPHID CANCEL.
        let waiting = try await keys.start("waiting", touch: .wait)
        let vault = try await SecurityKeyVault(keys, device: waiting)
        let before = try await vault.puffctl(["slot", "list", "login"])
        #expect(before.status == 0, "\(before.output)")

        let add = Process()
        add.executableURL = URL(fileURLWithPath: VaultFlowTests.puffctl)
        add.arguments = ["slot", "add", "login", "fido2", "--label", "abandoned", "--stdin"]
        add.environment = vault.puffd.clientEnvironment
        let input = Pipe()
        add.standardInput = input
        add.standardOutput = FileHandle.nullDevice
        add.standardError = FileHandle.nullDevice
        try add.run()
        // The proof, then standard input stays open as a person's terminal would.
        input.fileHandleForWriting.write(Data((SecurityKeyVault.passcode + "\n").utf8))
        #expect(try await waiting.waitForLogLine("touch?"), "\(vault.puffd.log.suffix(1500))")
        // The person gives up on the key: Ctrl-C.
        kill(add.processIdentifier, SIGINT)
        _ = await add.exitStatusWhenEnded()
        try? input.fileHandleForWriting.close()
        #expect(
            try await waiting.waitForLogLine("cancel", within: Self.beforePuffdsOwnLimit),
            "the key still waits: \(waiting.logged())")

        let after = try await vault.puffctl(["slot", "list", "login"])
        #expect(after.status == 0, "\(after.output)")
        #expect(after.output == before.output, "a slot was added: \(after.output)")
        #expect(!after.output.contains("abandoned"), "\(after.output)")
    }
}
