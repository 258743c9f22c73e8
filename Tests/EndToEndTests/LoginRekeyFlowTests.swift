// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The person's path after a login password change puffd missed (docs/pam.md "The login slot"),
/// through the built `puffd` and `puffctl`: the first login made `login` under the old password;
/// the next start gets the new one, which does not open it, and nobody answers the re-sync
/// question; the log says to run `puffctl passwd login`, and the person does, with the old
/// password and then the new one. Afterwards the old password must open nothing.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LoginRekeyFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-loginrekey-\(UUID().uuidString)")
    var vault: String { folder.appendingPathComponent("vault").path }

    /// puffd on the vault, handed `password` as the login password at start (`--unlock-fd 0`).
    func daemon(loginPassword password: String) async throws -> TestDaemon {
        try await TestDaemon(
            arguments: ["--data-dir", vault, "--kdf", "interactive", "--unlock-fd", "0"], input: Data(password.utf8))
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    @Test func passwdLoginAfterAMissedChangeLeavesTheOldLoginPasswordOpeningNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = try await daemon(loginPassword: "old login pw")
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                first.log.contains("login created with the passcode from --unlock-fd")
            }, "\(first.log.suffix(1500))")
        _ = await first.terminate()

        // The password changed while puffd did not run; nobody answers the re-sync question.
        let puffd = try await daemon(loginPassword: "new login pw")
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                puffd.log.contains("The passcode from --unlock-fd does not open login")
            }, "\(puffd.log.suffix(1500))")
        let advised = await poll(limit: HangGuard.step) { puffd.log.contains("run: puffctl passwd login") }
        #expect(advised, "the log says what to do: \(puffd.log.suffix(1500))")

        let changed = try await puffctl(puffd, ["passwd", "login", "--stdin"], input: "old login pw\nnew login pw\n")
        #expect(changed.status == 0, "\(changed.output)")
        let slots = try await puffctl(puffd, ["slot", "list", "login"])
        #expect(slots.status == 0 && !slots.output.contains("passcode"), "one login slot: \(slots.output)")

        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let old = try await puffctl(puffd, ["unlock", "login", "--stdin"], input: "old login pw\n")
        #expect(old.status == 2, "the old login password still opens login: \(old.output)")
        let new = try await puffctl(puffd, ["unlock", "login", "--stdin"], input: "new login pw\n")
        #expect(new.status == 0, "\(new.output)")
        _ = await puffd.terminate()

        // The next login, as the PAM module hands it over, opens it with the new password.
        let next = try await daemon(loginPassword: "new login pw")
        // The vault loads after the bus name is owned: the line may come after the start.
        #expect(
            await poll(limit: HangGuard.step) {
                next.log.contains("login unlocked with the passcode from --unlock-fd")
            }, "\(next.log.suffix(1500))")
        #expect(!next.log.contains("new login pw") && !next.log.contains("old login pw"))
    }
}
