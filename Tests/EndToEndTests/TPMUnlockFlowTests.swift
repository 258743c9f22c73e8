// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A tpm2 slot through the built binaries against a swtpm the test starts (docs/design/unlock-slots.md
/// §5 item 4): `puffctl slot add login tpm2` on a private bus, then puffd restarted with no person
/// and no prompter opens `login` at start, so `secret-tool lookup` reads the item; under another
/// TPM state, or once a bound PCR was extended, `login` stays locked and its passcode still opens it.
@Suite(.serialized, .enabled(if: TestBus.isAvailable && SoftwareTPM.canRun))
struct TPMUnlockFlowTests {
    static let passcode = "tpm login pass\n"
    static let secret = "tpm-secret"

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tpm-e2e-\(UUID().uuidString)")

    /// puffd on the test's vault with `tpm` as its TPM; nobody answers a prompt (`--prompter none`),
    /// so a collection is open only if puffd opened it itself. With `input`, login is created (or
    /// opened) from it (`--unlock-fd 0`).
    func daemon(_ tpm: SoftwareTPM, input: String? = nil) async throws -> TestDaemon {
        try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive", "--prompter", "none",
                "--tpm2-device", tpm.tcti,
            ] + (input == nil ? [] : ["--unlock-fd", "0"]),
            input: input.map { Data($0.utf8) })
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    func lookup(_ daemon: TestDaemon) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "tpm-e2e"], environment: daemon.clientEnvironment)
    }

    /// Whether puffd reports `login` locked (`puffctl status --json`).
    func loginIsLocked(_ daemon: TestDaemon) async throws -> Bool {
        let status = try await puffctl(daemon, ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        let login = try #require(collections.first { $0["id"] as? String == "login" }, "\(status.output)")
        return try #require(login["locked"] as? Bool)
    }

    /// A vault whose `login` holds the test's item and a tpm2 slot sealed by `tpm` (`extra` adds options).
    func enrol(_ tpm: SoftwareTPM, _ extra: [String] = []) async throws {
        let first = try await daemon(tpm, input: Self.passcode)
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=tpm", "service", "tpm-e2e"],
            environment: first.clientEnvironment, input: Data(Self.secret.utf8))
        #expect(store.status == 0, "\(store.output)")
        let add = try await puffctl(first, ["slot", "add", "login", "tpm2", "--stdin"] + extra, input: Self.passcode)
        #expect(add.status == 0, "\(add.output)\n\(first.log.suffix(1500))")
        // Sealing went through puffd's TPM2Device: nothing of it stays loaded in the TPM.
        #expect(try tpm.loadedHandles() == [])
        #expect(await first.terminate() == 0)
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func aTPM2SlotOpensLoginAtStartWithNoPersonAndNotUnderAnotherTPMState() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        try await enrol(tpm)

        let second = try await daemon(tpm)
        #expect(try await loginIsLocked(second) == false, "\(second.log.suffix(1500))")
        let read = try await lookup(second)
        #expect(read.status == 0 && read.output == Self.secret, "\(read.output)")
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                second.log.contains("Opened by a tpm2 or transit slot at start: login")
            },
            "\(second.log.suffix(1500))")
        #expect(try tpm.loadedHandles() == [])
        #expect(await second.terminate() == 0)

        // The same vault files on a machine whose TPM is another (a new swtpm state): a thief's copy.
        let other = try SoftwareTPM()
        let third = try await daemon(other)
        #expect(try await loginIsLocked(third), "\(third.log.suffix(1500))")
        #expect(try await lookup(third).output != Self.secret)
        #expect(try other.loadedHandles() == [])
        // The passcode slot still opens it.
        let unlock = try await puffctl(third, ["unlock", "login", "--stdin"], input: Self.passcode)
        #expect(unlock.status == 0, "\(unlock.output)")
        #expect(try await lookup(third).output == Self.secret)
        for log in [second.log, third.log] { #expect(!log.contains(Self.passcode.dropLast())) }
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func aSlotBoundToPCR7StaysLockedOnceThePCRIsExtended() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        try await enrol(tpm, ["--pcrs", "7"])

        let second = try await daemon(tpm)
        #expect(try await loginIsLocked(second) == false, "bound, unchanged: \(second.log.suffix(1500))")
        #expect(await second.terminate() == 0)

        // As a changed boot would: PCR 7 (Secure Boot policy) measures something else.
        try tpm.tool("tpm2_pcrextend", ["7:sha256=" + String(repeating: "5a", count: 32)])
        let third = try await daemon(tpm)
        #expect(try await loginIsLocked(third), "\(third.log.suffix(1500))")
        #expect(try await lookup(third).output != Self.secret)
        #expect(try tpm.loadedHandles() == [])
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func addingATPM2SlotWithNoTPMAnsweringSaysWhichTPMAndAddsNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        let puffd = try await daemon(tpm, input: Self.passcode)
        try tpm.stop()
        let add = try await puffctl(puffd, ["slot", "add", "login", "tpm2", "--stdin"], input: Self.passcode)
        #expect(add.status != 0)
        #expect(add.output.contains(tpm.tcti), "the TPM is named: \(add.output)")
        let list = try await puffctl(puffd, ["slot", "list", "login"])
        #expect(list.status == 0 && !list.output.contains("tpm2"), "\(list.output)")
    }
}
