// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import` of the hand-written Bitwarden export (PuffTesting's ``BitwardenFixture``)
/// through the built puffd, read back with python3-secretstorage and secret-tool; puffctl runs
/// without a terminal (docs/migration.md, "Bitwarden").
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct BitwardenImportFlowTests {
    let flow = ImportFlowTests()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-bitwarden-\(UUID().uuidString)")

    func write(_ bytes: [UInt8], as name: String) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", VaultFlowTests.puffctl] + arguments, environment: puffd.clientEnvironment)
    }

    static var expected: [ImportFlowTests.Expected] {
        BitwardenFixture.expected.map { item in
            var expected = ImportFlowTests.Expected(item.label, item.attributes, item.secret)
            expected.created = item.created
            expected.modified = item.modified
            return expected
        }
    }

    @Test func theExportArrivesAsMappedWithItsSkippedKindsListedAndNothingElse() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A name that says nothing: the format is found from the content.
        let path = try write(BitwardenFixture.bytes, as: "export.dat")
        let puffd = try await flow.daemon()

        let plan = try await puffctl(puffd, ["import", path, "--into", "login", "--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        for line in [
            "skipped   'Visa': a card: Puff imports logins and secure notes",
            "skipped   'Me': an identity: Puff imports logins and secure notes",
            "skipped   'deploy key': an SSH key: Puff imports logins and secure notes",
            "skipped   'thrown away': in Bitwarden's trash",
            "added     'Bänk ✓ 🔑' (not imported: its notes, its TOTP key, 1 more URI, 1 custom field, "
                + "its password history (1 earlier password), its master password re-prompt)",
            "6 added, 0 replaced, 0 unchanged, 4 skipped", "nothing was changed (--dry-run)",
        ] {
            #expect(plan.output.contains(line), "\(line)\n\(plan.output)")
        }
        try await flow.expectHolds(puffd, [])

        let imported = try await puffctl(puffd, ["import", path, "--into", "login"])
        #expect(imported.status == 0, "\(imported.output)")
        #expect(imported.output.contains("6 added, 0 replaced, 0 unchanged, 4 skipped"), "\(imported.output)")
        for value in BitwardenFixture.neverImported + ["pässwörd", BitwardenFixture.printable] {
            #expect(!imported.output.contains(value), "the output shows \(value)")
        }
        try await flow.expectHolds(puffd, Self.expected)
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "user", "jürgen@exämple.org"], environment: puffd.clientEnvironment)
        #expect(lookup.bytes == Data("pässwörd ✓ \"quoted\" \\ back".utf8), "secret-tool reads the password back")

        let again = try await puffctl(puffd, ["import", path, "--into", "login", "--json"])
        #expect(again.status == 0, "\(again.output)")
        let lines = again.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let skipped = lines.filter { $0["outcome"] as? String == "skipped" }
        #expect(skipped.count == 4 && skipped.allSatisfy { $0["index"] == nil }, "\(again.output)")
        #expect(lines.last?["unchanged"] as? Int == 6 && lines.last?["skipped"] as? Int == 4, "\(again.output)")
        try await flow.expectHolds(puffd, Self.expected)
    }

    @Test func anEncryptedExportIsRefusedSayingSoWithoutAskingForAPassword() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try write(BitwardenFixture.encrypted, as: "encrypted.json")
        let puffd = try await flow.daemon()
        let result = try await puffctl(puffd, ["import", path, "--into", "login"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("not supported: an encrypted Bitwarden export"), "\(result.output)")
        #expect(result.output.contains("nothing was imported"), "\(result.output)")
        #expect(!result.output.contains("--source-passcode-fd"), "no password is asked for")
        try await flow.expectHolds(puffd, [])
    }
}
