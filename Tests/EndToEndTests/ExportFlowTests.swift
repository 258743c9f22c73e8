// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffFormats

/// `puffctl export` through the built puffd and puffctl (issue 25 item 2): the collection holds
/// the import fixture's awkward items (a unicode label, an empty value, 50 attributes, every byte
/// value, a 64 KiB secret), and each export is read back by the other provider's real tools:
/// gnome-keyring-daemon with secret-tool, libsecret's file backend, keepassxc-cli and pykeepass.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ExportFlowTests {
    let commands = VaultFlowTests()
    let imports = ImportFlowTests()
    /// ASCII, so no locale decides how keepassxc-cli turns it into key bytes.
    static let target = "target pass 7"

    /// A puffd whose `login` holds the fixture's items, and what they are. It has no prompter
    /// that reaches a person: the exports agree with the collection's passcode.
    func filled() async throws -> (TestDaemon, [ImportFlowTests.Expected]) {
        let (fixture, expected) = try await imports.source()
        defer { fixture.remove() }
        let puffd = try await TestDaemon(
            arguments: ["--data-dir", commands.dataDir, "--kdf", "interactive", "--prompter", "none"])
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "vault pass\n").status == 0)
        let result = try await imports.importing(puffd, fixture.path)
        try #require(result.status == 0, "\(result.output)")
        return (puffd, expected)
    }

    /// `puffctl export` of `login`: the file's password, then the collection's (the consent), on stdin.
    func exporting(
        _ puffd: TestDaemon, _ format: String, to path: String, _ extra: [String] = [],
        input: String = "\(ExportFlowTests.target)\nvault pass\n"
    ) async throws -> ChildProcess.Result {
        try await commands.puffctl(
            puffd,
            ["export", "--collection", "login", "--format", format, path, "--target-passcode-fd", "0", "--stdin"]
                + extra, input: input)
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        return url
    }

    @Test(.enabled(if: GnomeKeyringDaemon.installed))
    func aGnomeKeyringExportIsUnlockedByARealDaemonAndReadBackExactlyWithSecretTool() async throws {
        let (puffd, expected) = try await filled()
        let home = try GnomeKeyringFileTests.Home()
        defer { home.remove() }
        let path = home.keyrings.appendingPathComponent("login.keyring").path

        let result = try await exporting(puffd, "gnome-keyring", to: path)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("exported 4 items of login to \(path) (gnome-keyring)"), "\(result.output)")

        try await home.run("serve", ["login"], input: Self.target)
        let served = try home.served("served.json")
        #expect(served.label == "Login")
        #expect(served.items.count == expected.count)
        for item in expected {
            guard let match = served.items.first(where: { $0.label == item.label }) else {
                Issue.record("gnome-keyring serves no item labelled \(item.label)")
                continue
            }
            var attributes = item.attributes
            // gnome-keyring reports the generic schema for an item stored without one.
            attributes["xdg:schema"] = attributes["xdg:schema"] ?? "org.freedesktop.Secret.Generic"
            #expect(match.attributes == attributes, "\(item.label)")
            let secret = try GnomeKeyringFileTests.digest(SecureBytes(unwipedCopyOf: Self.bytes(item.secretHex)))
            #expect(match.secret == secret, "\(item.label): the daemon's secret")
            #expect(match.secretTool == secret, "\(item.label): secret-tool lookup")
            #expect(item.created == nil || match.created == item.created, "\(item.label)")
            #expect(item.modified == nil || match.modified == item.modified, "\(item.label)")
        }
    }

    @Test func aLibsecretExportIsReadExactlyBySecretToolsFileBackend() async throws {
        let (puffd, expected) = try await filled()
        let file = try LibsecretFixture(password: Self.target)
        defer { file.remove() }

        let result = try await exporting(puffd, "libsecret", to: file.path)
        #expect(result.status == 0, "\(result.output)")
        // Standard error is a pipe here: no bar.
        #expect(!result.output.contains("export ["), "\(result.output)")
        #expect(!result.output.contains("export-received ["), "\(result.output)")

        for item in expected {
            let pairs = item.attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            let same = try await file.lookup(pairs) == Self.bytes(item.secretHex)
            #expect(same, "secret-tool lookup of \(item.label) read another secret")
            let listing = try await file.search(pairs)
            #expect(listing.contains("label = \(item.label)\n"), "\(item.label)")
            for (name, value) in item.attributes {
                #expect(listing.contains("attribute.\(name) = \(value)\n"), "\(item.label): \(name)")
            }
        }
    }

    @Test func aKDBXExportIsReadExactlyByKeepassxcCLIAndPykeepass() async throws {
        let (puffd, expected) = try await filled()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("export.kdbx").path

        let result = try await exporting(puffd, "kdbx", to: path)
        #expect(result.status == 0, "\(result.output)")

        let dump = try await KDBXCheck.pykeepass(path, password: Self.target)
        #expect(dump.count == expected.count)
        for item in expected {
            let (strings, attachments) = KDBXCheck.expected(item)
            let entry = dump.first { $0.strings["Title"] == item.label }
            #expect(entry?.strings == strings, "pykeepass: \(item.label)")
            #expect(entry?.attachments == attachments, "pykeepass: \(item.label)")
            let shown = try await KDBXCheck.keepassxcShow(path, entry: item.label, password: Self.target)
            #expect(shown == strings, "keepassxc-cli show -s: \(item.label)")
        }
        let binary = try #require(expected.first { $0.label == "every byte" })
        let attachment = try await KDBXCheck.keepassxcAttachment(
            path, entry: binary.label, name: "FDO_SECRETS_DATA", password: Self.target, folder: folder)
        #expect(attachment == Self.bytes(binary.secretHex), "keepassxc-cli attachment-export of every byte")
    }

    /// The export's audit entries, as `puffctl audit --json` lists them.
    func exportEntries(_ puffd: TestDaemon) async throws -> [[String: Any]] {
        let audit = try await commands.puffctl(puffd, ["audit", "--json"])
        let document = try JSONSerialization.jsonObject(with: audit.bytes) as? [String: Any]
        let entries = try #require(document?["entries"] as? [[String: Any]], "\(audit.output)")
        return entries.filter { $0["action"] as? String == "export" }
    }

    @Test func aLinkAFIFOOrAFileAtOutfileIsRefusedBeforeAnySecretLeavesAndTheResultIs0600() async throws {
        let (puffd, _) = try await filled()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let victim = path("victim")
        try Data("victim".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: path("link.keyring"), withDestinationPath: victim)
        #expect(mkfifo(path("fifo.keyring"), 0o600) == 0)
        try Data("old".utf8).write(to: URL(fileURLWithPath: path("existing.keyring")))

        for force in [[], ["--force"]] {
            let link = try await exporting(puffd, "libsecret", to: path("link.keyring"), force)
            #expect(link.status == 1, "\(link.output)")
            #expect(link.output.contains("is a symbolic link; it is neither followed nor replaced"), "\(link.output)")
            // A FIFO is never opened, so nothing waits for a reader.
            let fifo = try await exporting(puffd, "libsecret", to: path("fifo.keyring"), force)
            #expect(fifo.status == 1, "\(fifo.output)")
            #expect(fifo.output.contains("exists and is not a regular file"), "\(fifo.output)")
        }
        let existing = try await exporting(puffd, "libsecret", to: path("existing.keyring"))
        #expect(existing.status == 1, "\(existing.output)")
        #expect(existing.output.contains("exists; --force replaces it"), "\(existing.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("existing.keyring"))) == Data("old".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("victim".utf8))
        let linkTarget = try FileManager.default.destinationOfSymbolicLink(atPath: path("link.keyring"))
        #expect(linkTarget == victim)
        // Refused before puffd was called: no secret left the vault, nothing was audited.
        #expect(try await exportEntries(puffd).isEmpty)

        let fresh = try await exporting(puffd, "libsecret", to: path("fresh.keyring"))
        #expect(fresh.status == 0, "\(fresh.output)")
        let replaced = try await exporting(puffd, "libsecret", to: path("existing.keyring"), ["--force"])
        #expect(replaced.status == 0, "\(replaced.output)")
        for name in ["fresh.keyring", "existing.keyring"] {
            var info = stat()
            #expect(lstat(path(name), &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFREG, "\(name)")
            #expect(info.st_mode & 0o777 == 0o600, "\(name) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        let replacedBytes = try Data(contentsOf: URL(fileURLWithPath: path("existing.keyring")))
        #expect(Array(replacedBytes.prefix(12)) == Array("GnomeKeyring".utf8))
        // No temporary file is left beside them.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["existing.keyring", "fifo.keyring", "fresh.keyring", "link.keyring", "victim"])
        // One entry per item per export.
        #expect(try await exportEntries(puffd).count == 8)
    }

    @Test func anEmptyPasswordOrNobodyToConfirmWritesNothing() async throws {
        let (puffd, _) = try await filled()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.kdbx").path

        let empty = try await exporting(puffd, "kdbx", to: path, input: "\nvault pass\n")
        #expect(empty.status == 1, "\(empty.output)")
        #expect(empty.output.contains("the passcode is empty"), "\(empty.output)")
        // Without the collection's passcode, puffd asks its prompters; a test puffd has none that
        // reaches a person.
        let unconfirmed = try await commands.puffctl(
            puffd,
            ["export", "--collection", "login", "--format", "kdbx", path, "--target-passcode-fd", "0"],
            input: "\(Self.target)\n")
        #expect(unconfirmed.status == 1, "\(unconfirmed.output)")
        #expect(unconfirmed.output.contains("nobody confirmed"), "\(unconfirmed.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // The refused consent is audited once, for the collection (item 0); no item was exported.
        let entries = try await exportEntries(puffd)
        #expect(entries.map { $0["result"] as? String } == ["dismissed"], "\(entries)")
        #expect(entries.map { $0["label"] as? String } == ["Login"], "\(entries)")
    }
}
