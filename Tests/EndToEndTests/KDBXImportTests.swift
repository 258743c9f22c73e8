// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import` of KeePass databases the real tools made at test time (issue 25's first "Done
/// when" line), through Clients/kdbx_tool.py: KDBX 3.1 by `keepassxc-cli` with its clock at
/// 2017 (libfaketime) and the custom fields it cannot write added by pykeepass, which keeps the
/// file 3.1 (and the same file after keepassxc-cli's `rm`, which KeePassXC saves as KDBX 4.1);
/// KDBX 4 with Argon2d by pykeepass, times set through its own API. pykeepass's reading
/// of the file is the oracle, mapped as the issue says (label = Title; secret = Password, or the
/// `FDO_SECRETS_DATA` attachment with `FDO_SECRETS_CONTENT_TYPE`; attributes = the custom fields
/// plus `user` and `url` when not empty; the recycle bin skipped); puffd's items are read back
/// over D-Bus with python3-secretstorage and secret-tool. Other attachments are named as not
/// imported, in the dry run and in the result.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct KDBXImportTests {
    static let password = "fixture password 7"
    static let everyByte = (0...255).map { UInt8($0) }
    /// The 64 KiB secret both fixtures hold: kdbx_tool.py's BIG.
    static let big = String(repeating: "€", count: 21845) + "x"

    /// One entry as `kdbx_tool.py dump-py` prints it.
    struct Entry: Decodable {
        var path: String
        var strings: [String: String]
        var attachments: [String: String]
        var times: [UInt64]
        var recycled: Bool
    }

    struct Dump: Decodable {
        var version: [Int]
        /// pykeepass's name of the KDF; nil for the KDBX 4 AES-KDF, which it does not name.
        var kdf: String?
        var entries: [Entry]
    }

    /// A fixture file made by `command` and pykeepass's reading of it.
    struct Fixture {
        let folder: URL
        var file: String { folder.appendingPathComponent("fixture.kdbx").path }
        var dump: Dump

        init(_ command: String) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-kdbx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            dump = Dump(version: [], kdf: nil, entries: [])
            _ = try await tool(command)
            dump = try JSONDecoder().decode(Dump.self, from: try await tool("dump-py"))
        }

        private func tool(_ command: String) async throws -> Data {
            let script = ClientDriver.directory.appendingPathComponent("kdbx_tool.py").path
            let result = try await ChildProcess.run(
                ClientDriver.python, [script, command, file],
                environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path, "LANG": "C.UTF-8"],
                input: Data((KDBXImportTests.password + "\n").utf8), timeout: HangGuard.driver)
            try #require(result.status == 0, "kdbx_tool.py \(command): \(result.output.suffix(500))")
            return result.bytes
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    /// The mapping applied to pykeepass's reading: the items puffd must serve.
    static func expected(_ dump: Dump) -> [ImportedItem] {
        let standard: Set = ["Title", "UserName", "Password", "URL", "Notes"]
        return dump.entries.filter { !$0.recycled }.map { entry in
            var attributes = entry.strings.filter { !standard.contains($0.key) }
            var secretHex = ImportedItem.hex(Array((entry.strings["Password"] ?? "").utf8))
            var contentType = "text/plain"
            if let data = entry.attachments["FDO_SECRETS_DATA"] {
                secretHex = data
                contentType = attributes.removeValue(forKey: "FDO_SECRETS_CONTENT_TYPE") ?? "application/octet-stream"
            }
            for (field, attribute) in [("UserName", "user"), ("URL", "url")] {
                if let value = entry.strings[field], !value.isEmpty { attributes[attribute] = value }
            }
            return ImportedItem(
                label: entry.strings["Title"] ?? "", attributes: attributes, secretHex: secretHex,
                contentType: contentType, created: entry.times[0], modified: entry.times[1])
        }
    }

    /// The fixture as pykeepass reads it really holds the cases.
    static func expectCases(_ items: [ImportedItem], sourceLocation: SourceLocation = #_sourceLocation) {
        let fiveYearsAgo = UInt64(Date().timeIntervalSince1970) - 5 * 365 * 86400
        #expect(
            items.contains { $0.label.contains("🔑") && $0.attributes["ключ"] == "значение ✓" },
            sourceLocation: sourceLocation)
        #expect(items.contains { $0.attributes["empty"] == "" }, sourceLocation: sourceLocation)
        #expect(items.contains { $0.attributes.count >= 50 }, sourceLocation: sourceLocation)
        #expect(items.contains { $0.secretHex == ImportedItem.hex(everyByte) }, sourceLocation: sourceLocation)
        #expect(items.contains { $0.secretHex == ImportedItem.hex(Array(big.utf8)) }, sourceLocation: sourceLocation)
        #expect(items.contains { $0.contentType == "application/x-puff-test" }, sourceLocation: sourceLocation)
        #expect(
            items.contains { ($0.created ?? .max) < fiveYearsAgo && ($0.modified ?? .max) < fiveYearsAgo },
            sourceLocation: sourceLocation)
        #expect(items.contains { ($0.modified ?? 0) > ($0.created ?? .max) }, "an entry edited later")
    }

    /// Makes the fixture, checks it, imports it (a dry run first) and checks what puffd serves.
    func importsExactly(_ command: String, version: [Int], kdf: String?, recycled: Int) async throws {
        let fixture = try await Fixture(command)
        defer { fixture.remove() }
        #expect(fixture.dump.version == version)
        #expect(fixture.dump.kdf == kdf)
        #expect(fixture.dump.entries.count { $0.recycled } == recycled, "entries in the recycle bin")
        let expected = Self.expected(fixture.dump)
        Self.expectCases(expected)
        let target = try await ImportTarget()
        let notImported = "not imported: attachment \"photo.png\" (16 bytes)"

        let plan = try await target.importing(fixture.file, password: Self.password, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains(notImported), "\(plan.output)")
        #expect(plan.output.contains(ImportTarget.totals(added: expected.count)), "\(plan.output)")
        try await target.expectHolds([])

        let result = try await target.importing(fixture.file, password: Self.password)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(notImported), "\(result.output)")
        #expect(result.output.contains(ImportTarget.totals(added: expected.count)), "\(result.output)")
        try await target.expectHolds(expected)
        let unicode = try await target.secretToolLookup([("user", "ålice"), ("url", "https://example.org/ü")])
        #expect(unicode == Data("pässword 🔐".utf8), "secret-tool reads the unicode secret exactly")
    }

    @Test func aKDBX31DatabaseKeePassXCMadeArrivesAsMapped() async throws {
        try await importsExactly("make-cli-past", version: [3, 1], kdf: "aeskdf", recycled: 0)
    }

    @Test func aKDBX41DatabaseKeePassXCSavedAfterARecycleArrivesWithoutTheRecycledEntry() async throws {
        try await importsExactly("make-cli-past-rm", version: [4, 1], kdf: nil, recycled: 1)
    }

    @Test func aKDBX4DatabaseWithArgon2dPykeepassMadeArrivesAsMapped() async throws {
        try await importsExactly("make-py", version: [4, 0], kdf: "argon2", recycled: 1)
    }
}
