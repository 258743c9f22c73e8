// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import STORE --into login` of a `pass` store the real `pass` made for a throwaway
/// gpg key, decrypted through the real gpg, read back with python3-secretstorage and secret-tool
/// (docs/migration.md, "pass"). puffctl runs without a terminal.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && PassStoreFixture.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct PassImportFlowTests {
    let flow = ImportFlowTests()

    /// puffctl with the fixture's GNUPGHOME, no controlling terminal.
    func puffctl(_ puffd: TestDaemon, _ fixture: PassStoreFixture, _ arguments: [String]) async throws
        -> ChildProcess.Result
    {
        var environment = puffd.clientEnvironment
        environment["GNUPGHOME"] = fixture.gnupgHome
        return try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", VaultFlowTests.puffctl] + arguments, environment: environment,
            timeout: HangGuard.driver)
    }

    /// Runs `body` with a fresh fixture, removing it (and its gpg-agent) whatever happens.
    func withStore(_ body: (PassStoreFixture) async throws -> Void) async throws {
        let fixture = try await PassStoreFixture()
        do {
            try await body(fixture)
        } catch {
            await fixture.remove()
            throw error
        }
        await fixture.remove()
    }

    @Test func everyEntryArrivesAsMappedAndLinksAndOtherFilesAreSkippedNotFollowed() async throws {
        try await withStore { fixture in
            try await fixture.insert(
                "Wëb/exämple ✓.org", Array("pw ✓\nlogin: alice\nurl: https://example.org\nnote\n".utf8))
            try await fixture.insert("émpty", Array("\n".utf8))
            try await fixture.insert(
                "multi/line",
                Array("s3cret  \nusername: bob\nuser: carol\nURL:  https://x.example \nmore\nlines\n".utf8))
            // An entry of another store for the same key: readable by gpg, so only not following
            // a link keeps it out.
            let outside = fixture.root.appendingPathComponent("outside").path
            try await fixture.initialiseStore(at: outside)
            try await fixture.insert("elsewhere", Array("Outside-secret\n".utf8), store: outside)
            let links = [
                ("link.gpg", outside + "/elsewhere.gpg"), ("linked-folder", outside),
                ("Wëb/up.gpg", outside + "/elsewhere.gpg"),
            ]
            for (name, target) in links {
                try FileManager.default.createSymbolicLink(
                    atPath: fixture.store + "/" + name, withDestinationPath: target)
            }
            try Data("plain text\n".utf8).write(to: URL(fileURLWithPath: fixture.store + "/notes.txt"))
            let puffd = try await flow.daemon()

            let first = try await puffctl(puffd, fixture, ["import", fixture.store, "--into", "login"])
            #expect(first.status == 0, "\(first.output)")
            #expect(first.output.contains("3 added, 0 replaced, 0 unchanged, 4 skipped"), "\(first.output)")
            for line in [
                "skipped   'link.gpg': a symbolic link (not followed)",
                "skipped   'linked-folder': a symbolic link (not followed)",
                "skipped   'Wëb/up.gpg': a symbolic link (not followed)",
                "skipped   'notes.txt': not an entry (its name does not end in .gpg)",
                "added     'Wëb/exämple ✓.org' (not imported: 1 more line of the file)",
            ] {
                #expect(first.output.contains(line), "\(line)\n\(first.output)")
            }
            #expect(!first.output.contains("Outside-secret") && !first.output.contains("pw ✓"))
            try await flow.expectHolds(
                puffd,
                [
                    .init(
                        "Wëb/exämple ✓.org", ["user": "alice", "url": "https://example.org"], Array("pw ✓".utf8)),
                    .init("émpty", [:], []),
                    .init("multi/line", ["user": "carol", "url": "https://x.example"], Array("s3cret  ".utf8)),
                ])
            let lookup = try await ChildProcess.run(
                "/usr/bin/secret-tool", ["lookup", "user", "alice"], environment: puffd.clientEnvironment)
            #expect(lookup.bytes == Data("pw ✓".utf8), "secret-tool reads the first line back")

            let second = try await puffctl(
                puffd, fixture, ["import", fixture.store, "--into", "login", "--format", "pass", "--json"])
            #expect(second.status == 0, "\(second.output)")
            #expect(second.output.contains("\"skipped\":4,\"unchanged\":3"), "\(second.output)")
            // The entries decrypted so far, as progress lines on standard error.
            let progress = second.output.split(separator: "\n").filter { $0.contains("\"operation\":\"import-read\"") }
            #expect(
                progress.contains { $0.contains("\"total\":3") && $0.contains("\"unit\":\"items\"") },
                "\(second.output)")
        }
    }

    @Test func anEntryGpgCannotDecryptIsNamedAndNothingIsImported() async throws {
        try await withStore { fixture in
            try await fixture.insert("good", Array("a\n".utf8))
            try await fixture.insert("zz/also good", Array("b\n".utf8))
            try Data("not an OpenPGP message".utf8).write(to: URL(fileURLWithPath: fixture.store + "/brökèn.gpg"))
            let puffd = try await flow.daemon()

            let result = try await puffctl(puffd, fixture, ["import", fixture.store, "--into", "login"])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("gpg did not decrypt brökèn"), "\(result.output)")
            #expect(result.output.contains("nothing was imported"), "\(result.output)")
            try await flow.expectHolds(puffd, [])
        }
    }

    @Test func aFileOrAFolderThatIsNotAStoreIsRefusedForFormatPass() async throws {
        try await withStore { fixture in
            let puffd = try await flow.daemon()
            let file = try await puffctl(
                puffd, fixture, ["import", fixture.store + "/.gpg-id", "--into", "login", "--format", "pass"])
            #expect(file.status == 1 && file.output.contains("is not a folder"), "\(file.output)")
            let folder = try await puffctl(puffd, fixture, ["import", fixture.gnupgHome, "--into", "login"])
            #expect(folder.status == 1 && folder.output.contains("it has no .gpg-id at its top"), "\(folder.output)")
            let link = fixture.root.appendingPathComponent("store-link").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.store)
            let linked = try await puffctl(puffd, fixture, ["import", link, "--into", "login"])
            #expect(linked.status == 1 && linked.output.contains("it is a symbolic link"), "\(linked.output)")
            try await flow.expectHolds(puffd, [])
        }
    }
}
