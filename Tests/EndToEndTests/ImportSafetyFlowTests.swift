// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// What keeps an import from doing harm, through the built puffd and puffctl: a keyring
/// gnome-keyring itself corrupted is refused or salvaged without its phantom, an import that
/// changes something leaves a snapshot that `restore` takes back, and a source that needs a
/// password fails at once without a terminal instead of reading standard input.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ImportSafetyFlowTests {
    let flow = ImportFlowTests()
    let backups = BackupFlowTests()

    /// puffctl without a controlling terminal, `input` on its standard input.
    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await backups.puffctl(puffd, arguments, input: input)
    }

    /// The Bitwarden fixture (a source that needs no password) as a file in `folder`.
    func bitwardenFile(in folder: URL) throws -> String {
        let file = folder.appendingPathComponent("bitwarden.json")
        try Data(BitwardenFixture.bytes).write(to: file)
        return file.path
    }

    /// A HOME whose `plain.keyring` gnome-keyring-daemon itself damaged: a secret holding a
    /// newline. Made again (at most three times) when the driver fails: under load, gnome-keyring
    /// now and then answers a call on a collection it has just created with "no such object".
    func corruptedKeyring() async throws -> GnomeKeyringFileTests.Home {
        let driver = ClientDriver.directory.appendingPathComponent("gnome_keyring.py").path
        var outputs: [String] = []
        for _ in 1...3 {
            let home = try GnomeKeyringFileTests.Home()
            let result = try await ChildProcess.run(
                ClientDriver.python, [driver, "make-corrupt", home.url.path], environment: home.environment,
                timeout: HangGuard.driver)
            if result.status == 0, !result.output.contains("FAIL") { return home }
            outputs.append(String(result.output.suffix(400)))
            home.remove()
        }
        throw DriverFailed(description: "gnome_keyring.py make-corrupt failed three times: \(outputs)")
    }

    struct DriverFailed: Error, CustomStringConvertible {
        var description: String
    }

    @Test(.enabled(if: GnomeKeyringDaemon.installed))
    func aKeyringGnomeKeyringCorruptedIsRefusedAndSalvagedOnlyWhenAskedWithoutThePhantom() async throws {
        let home = try await corruptedKeyring()
        defer { home.remove() }
        let path = home.keyrings.appendingPathComponent("plain.keyring").path
        let puffd = try await flow.daemon()

        let refused = try await puffctl(puffd, ["import", path, "--into", "login"])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("the file is damaged: the item at line "), "\(refused.output)")
        #expect(refused.output.contains("salvaging reads the 2 intact item(s)"), "\(refused.output)")
        #expect(refused.output.contains("nothing was imported"), "\(refused.output)")
        try await flow.expectHolds(puffd, [])

        let misplaced = try await puffctl(
            puffd, ["import", try bitwardenFile(in: home.url), "--into", "login", "--salvage"])
        #expect(misplaced.status == 1 && misplaced.output.contains("--salvage is for"), "\(misplaced.output)")

        let salvaged = try await puffctl(puffd, ["import", path, "--into", "login", "--salvage"])
        #expect(salvaged.status == 0, "\(salvaged.output)")
        #expect(salvaged.output.contains("skipped   damaged: the item at line "), "\(salvaged.output)")
        #expect(salvaged.output.contains("2 added, 0 replaced, 0 unchanged, 1 skipped"), "\(salvaged.output)")
        for value in ["first line", "phantom]", "second=line"] {
            #expect(!salvaged.output.contains(value), "the output shows \(value)")
        }
        let generic = "org.freedesktop.Secret.Generic"
        try await flow.expectHolds(
            puffd,
            [
                .init("before", ["n": "1", "xdg:schema": generic], Array("intact one".utf8)),
                .init("after", ["n": "3", "xdg:schema": generic], Array("intact two".utf8)),
            ])
    }

    @Test func anImportThatChangesSomethingLeavesASnapshotThatRestoreTakesBack() async throws {
        defer { try? FileManager.default.removeItem(at: backups.folder) }
        let puffd = try await backups.daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await backups.store(puffd, 0) == 0)
        let snapshots = backups.vault.appendingPathComponent("snapshots")
        let names = { (try? FileManager.default.contentsOfDirectory(atPath: snapshots.path).sorted()) ?? [] }
        let source = try bitwardenFile(in: backups.folder)

        let plan = try await puffctl(puffd, ["import", source, "--into", "login", "--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(names().isEmpty, "a dry run takes no snapshot: \(names())")
        let imported = try await puffctl(puffd, ["import", source, "--into", "login"])
        #expect(imported.status == 0, "\(imported.output)")
        let taken = names()
        try #require(taken.count == 1 && taken[0].hasSuffix("-import.puffbak"), "\(taken)")
        let again = try await puffctl(puffd, ["import", source, "--into", "login"])
        #expect(again.output.contains("0 added, 0 replaced, 6 unchanged"), "\(again.output)")
        #expect(names().count == 1, "an import that changes nothing takes no snapshot: \(names())")

        let snapshot = snapshots.appendingPathComponent(taken[0]).path
        let restored = try await puffctl(puffd, ["restore", snapshot, "--force", "--stdin"], input: "right pass\n")
        #expect(restored.status == 0, "\(restored.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        // Only the item stored before the import.
        try await flow.expectHolds(
            puffd,
            [.init("Zebra-label-0", ["app": "backup-e2e-value", "n": "0"], Array("Quokka-secret-0".utf8))])
    }

    @Test func withoutATerminalAPasswordedSourceFailsAtOnceNamingTheOptionAndLeavesStandardInputUnread()
        async throws
    {
        let (fixture, expected) = try await flow.source()
        defer { fixture.remove() }
        let puffd = try await flow.daemon()

        // The right password on standard input: read from there, the import would succeed.
        let result = try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", VaultFlowTests.puffctl, "import", fixture.path, "--into", "login"],
            environment: puffd.clientEnvironment, input: Data("source pass\n".utf8), timeout: HangGuard.driver)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("pass it on a descriptor with --source-passcode-fd N"), "\(result.output)")
        #expect(result.output.contains("nothing was imported"), "\(result.output)")
        try await flow.expectHolds(puffd, [])

        let given = try await ChildProcess.run(
            "/usr/bin/setsid",
            ["-w", VaultFlowTests.puffctl, "import", fixture.path, "--into", "login", "--source-passcode-fd", "0"],
            environment: puffd.clientEnvironment, input: Data("source pass\n".utf8), timeout: HangGuard.driver)
        #expect(given.status == 0, "\(given.output)")
        try await flow.expectHolds(puffd, expected)
    }
}
