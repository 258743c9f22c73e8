// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffFormats
import PuffTesting
import Testing

/// gnome-keyring's keyring files against the real gnome-keyring-daemon (Debian's gnome-keyring,
/// on a private dbus-daemon, its clock set years back with libfaketime while it writes the
/// fixtures): what the reader reads is what the daemon serves over D-Bus, and an export placed in
/// a fresh `~/.local/share/keyrings/` is unlocked and served exactly, read with secret-tool.
@Suite(.enabled(if: TestBus.isAvailable && GnomeKeyringDaemon.installed), .timeLimit(.minutes(HangGuard.testMinutes)))
struct GnomeKeyringFileTests {
    static let passcode = "fixture passcode ✓"

    /// A throwaway HOME (0700) and a private bus for one test.
    struct Home {
        let bus: TestBus
        let url: URL
        var keyrings: URL { url.appendingPathComponent("data/keyrings") }

        init() throws {
            bus = try TestBus()
            url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-gk-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: url.appendingPathComponent("data/keyrings"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        }

        var environment: [String: String] {
            ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        }

        /// Runs the driver's `command` on this HOME.
        func run(_ command: String, _ extra: [String] = [], input: String = "") async throws {
            let path = ClientDriver.directory.appendingPathComponent("gnome_keyring.py").path
            let result = try await ChildProcess.run(
                ClientDriver.python, [path, command, url.path] + extra, environment: environment,
                input: Data(input.utf8), timeout: HangGuard.driver)
            let lines = result.output.split(separator: "\n").map(String.init)
            for failure in lines where failure.hasPrefix("FAIL") || failure.hasPrefix("Traceback") {
                Issue.record("gnome_keyring.py \(command): \(failure)\n\(lines.suffix(5).joined(separator: "\n"))")
            }
            try #require(result.status == 0, "gnome_keyring.py \(command) exited \(result.status): \(lines.suffix(5))")
        }

        func keyring(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: keyrings.appendingPathComponent("\(name).keyring")))
        }

        /// What a daemon served, as the driver wrote it down.
        func served(_ file: String) throws -> Served {
            try JSONDecoder().decode(Served.self, from: Data(contentsOf: url.appendingPathComponent(file)))
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    struct Digest: Decodable, Equatable {
        var sha256: String
        var length: Int
    }

    struct ServedItem: Decodable {
        var path: String
        var label: String
        var attributes: [String: String]
        var type: String
        var created: UInt64
        var modified: UInt64
        var secret: Digest
        var contentType: String
        var secretTool: Digest?
    }

    struct Served: Decodable {
        var label: String
        var created: UInt64
        var modified: UInt64
        var items: [ServedItem]
        var secretToolSearch: String?
    }

    static func digest(_ secret: SecureBytes) throws -> Digest {
        let hash = try ForeignDigest.hash(.sha256, secret: [secret]).unprotectedArray()
        return Digest(sha256: hash.map { String(format: "%02x", $0) }.joined(), length: secret.count)
    }

    /// Every item read equals the item served with its label: attributes, secret, content type,
    /// times; and the same number of items.
    static func expectSame(
        _ read: [PortableItem], _ served: [ServedItem], secretsAsIn stored: [ServedItem]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(read.count == served.count, sourceLocation: sourceLocation)
        for item in read {
            guard let match = served.first(where: { $0.label == item.label }) else {
                Issue.record("no served item has the label of read item \(item.label)", sourceLocation: sourceLocation)
                continue
            }
            #expect(item.attributes == match.attributes, "\(item.label)", sourceLocation: sourceLocation)
            let secret = (stored ?? served).first { $0.label == item.label }?.secret
            #expect(try digest(item.secret) == secret, "\(item.label)", sourceLocation: sourceLocation)
            #expect(item.contentType == match.contentType, "\(item.label)", sourceLocation: sourceLocation)
            #expect(item.created == match.created, "\(item.label)", sourceLocation: sourceLocation)
            #expect(item.modified == match.modified, "\(item.label)", sourceLocation: sourceLocation)
            if match.attributes.isEmpty == false {
                #expect(
                    match.secretTool == match.secret, "secret-tool reads \(item.label)", sourceLocation: sourceLocation)
            }
        }
    }

    static let everyByte: [UInt8] = (0...255).map { UInt8($0) }
    static let large: [UInt8] = (0..<65536).map { UInt8(($0 * 7 + 3) % 251) }

    /// The fixture set's own facts, independent of the daemon: exact bytes where they are known.
    static func expectFixtureSet(_ items: [PortableItem]) throws {
        let byLabel = Dictionary(items.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byLabel["Ünïcödé ✓ label"]?.secret.unprotectedArray() == Array("hunter2 ✓".utf8))
        #expect(byLabel["Ünïcödé ✓ label"]?.attributes["empty"] == "")
        #expect(byLabel["every byte"]?.secret.unprotectedArray() == everyByte)
        #expect(byLabel["sixty-four KiB"]?.secret.unprotectedArray() == large)
        #expect(byLabel["fifty attributes"]?.attributes.count == 51, "50 and the schema")
        #expect(byLabel["explicit schema"]?.attributes["xdg:schema"] == "org.example.Custom")
        #expect(byLabel["network"]?.attributes["xdg:schema"] == "org.gnome.keyring.NetworkPassword")
        #expect(byLabel["note"]?.attributes["xdg:schema"] == "org.gnome.keyring.Note")
        // Written by a daemon whose clock read 2019-03-04.
        #expect(items.allSatisfy { ($0.created ?? .max) < 1_552_000_000 && ($0.modified ?? .max) < 1_552_000_000 })
    }

    @Test func aBinaryKeyringTheDaemonWroteReadsAsAFreshDaemonServesIt() async throws {
        let home = try Home()
        defer { home.remove() }
        try await home.run("make-binary", input: Self.passcode)
        // The file the fresh daemon reads: it may write the keyring again while it serves.
        let file = try home.keyring("login")
        try await home.run("serve", ["login"], input: Self.passcode)
        let read = try GnomeKeyringBinary.read(file, passcode: SecureBytes(unwipedCopyOf: Array(Self.passcode.utf8)))
        let served = try home.served("served.json")
        #expect(read.label == served.label)
        #expect(read.created == served.created)
        #expect(read.modified == served.modified)
        try Self.expectSame(read.items, served.items)
        try Self.expectFixtureSet(read.items)
        #expect(
            throws: ForeignFormatError.wrongPasscode,
            "the password is checked",
            performing: {
                try GnomeKeyringBinary.read(file, passcode: SecureBytes(unwipedCopyOf: [0x41]))
            })
    }

    @Test func aTextualKeyringReadsAsTheDaemonThatWroteItServedIt() async throws {
        let home = try Home()
        defer { home.remove() }
        try await home.run("make-textual")
        let file = try home.keyring("plain")
        try await home.run("serve", ["plain"])
        let read = try GnomeKeyringTextual.read(file, passcode: nil)
        // What a fresh daemon serves, but the secrets as the writing daemon served them: a fresh
        // one reads some back changed (leading spaces dropped, backslash escapes applied;
        // docs/migration.md); Puff reads them as stored.
        let served = try home.served("served.json")
        let written = try home.served("written.json")
        #expect(read.label == served.label)
        try Self.expectSame(read.items, served.items, secretsAsIn: written.items)
        try Self.expectFixtureSet(read.items)
        let raw = read.items.first { $0.label == "" }
        #expect(raw?.secret.unprotectedArray() == Array("  leading spaces, a \\ backslash and a tab\t".utf8))
    }

    @Test func aKeyringTheDaemonCorruptedIsRefusedOrSalvagedWithoutThePhantom() async throws {
        let home = try Home()
        defer { home.remove() }
        try await home.run("make-corrupt")
        // The file as the fresh daemon read it. Once it has read the phantom in, it may write the
        // keyring again while it serves (CI: the phantom saved as a real item with an empty label).
        let file = try home.keyring("plain")
        try await home.run("serve", ["plain"])
        let served = try home.served("served.json")
        // The premise, as gnome-keyring shows it: a phantom item beside the three real ones.
        #expect(served.items.count == 4)
        #expect(served.items.contains { $0.path.hasSuffix("/phantom") })
        #expect("refused, naming the damage and no secret") {
            try GnomeKeyringTextual.read(file, passcode: nil)
        } throws: { error in
            guard case ForeignFormatError.damaged(let message) = error else { return false }
            return message.contains("it has no mtime") && !message.contains("phantom]")
                && !message.contains("first line")
        }
        let salvaged = try GnomeKeyringTextual.read(file, salvage: true)
        #expect(salvaged.collection.items.map(\.label).sorted() == ["after", "before"])
        #expect(salvaged.skipped.count == 1)
        try Self.expectSame(
            salvaged.collection.items, served.items.filter { ["after", "before"].contains($0.label) })
    }

    @Test func anExportIsUnlockedByGnomeKeyringAndReadBackExactlyWithSecretTool() async throws {
        let home = try Home()
        defer { home.remove() }
        var collection = PortableCollection(label: "Login", items: [], created: 1_400_000_000, modified: 1_500_000_000)
        collection.items = try GnomeKeyringFileTests.exportFixtures()
        let passcode = SecureBytes(unwipedCopyOf: Array(Self.passcode.utf8))
        let file = try GnomeKeyringBinary.write(collection, passcode: passcode)
        let target = home.keyrings.appendingPathComponent("login.keyring")
        #expect(
            FileManager.default.createFile(
                atPath: target.path, contents: Data(file), attributes: [.posixPermissions: 0o600]))
        try await home.run("serve", ["login"], input: Self.passcode)
        let served = try home.served("served.json")
        #expect(served.label == "Login")
        #expect(served.created == 1_400_000_000)
        #expect(served.modified == 1_500_000_000)
        var expected = collection.items
        for index in expected.indices where expected[index].attributes["xdg:schema"] == nil {
            expected[index].attributes["xdg:schema"] = "org.freedesktop.Secret.Generic"
        }
        try Self.expectSame(expected, served.items)
        #expect(served.secretToolSearch?.contains("label = explicit schema\n") == true)
        #expect(served.secretToolSearch?.contains("created = 2019-03-04") == true)
    }

    /// The export's items: the fixture set as the binary fixture holds it, plus a uint32 attribute.
    static func exportFixtures() throws -> [PortableItem] {
        func secure(_ bytes: [UInt8]) -> SecureBytes { SecureBytes(unwipedCopyOf: bytes) }
        var fifty: [String: String] = [:]
        for index in 0..<50 { fifty[String(format: "attr%02d", index)] = "value \(index)" }
        let past: UInt64 = 1_551_675_967
        return [
            PortableItem(
                label: "Ünïcödé ✓ label", attributes: ["service": "mail", "user": "alice", "empty": ""],
                secret: secure(Array("hunter2 ✓".utf8)), created: past, modified: past + 1),
            PortableItem(
                label: "explicit schema", attributes: ["xdg:schema": "org.example.Custom", "id": "7"],
                secret: secure(Array("pässwörd ✓".utf8)), created: past, modified: past),
            PortableItem(
                label: "fifty attributes", attributes: fifty, secret: secure(Array("fifty".utf8)), created: 1,
                modified: 2),
            PortableItem(
                label: "every byte", attributes: ["kind": "bytes"], secret: secure(everyByte),
                created: past, modified: past),
            PortableItem(
                label: "sixty-four KiB", attributes: ["kind": "large"],
                secret: secure(large), created: past, modified: past),
            PortableItem(
                label: "network",
                attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "server": "example.org"],
                secret: secure(Array("net".utf8)), created: past, modified: past),
            PortableItem(
                label: "note", attributes: ["xdg:schema": "org.gnome.keyring.Note", "ünï": "cödé", "": "empty name"],
                secret: .empty, created: past, modified: past),
            PortableItem(
                label: "uint32", attributes: ["port": "993", "gkr:compat:uint32:port": ""], secret: secure([0, 1, 0]),
                created: past, modified: past),
        ]
    }
}

/// Whether Debian's gnome-keyring is here (with PUFF_REQUIRE_BUS=1 its absence fails the tests).
enum GnomeKeyringDaemon {
    static let installed = TestBus.canRun(needing: ["/usr/bin/gnome-keyring-daemon"])
}
