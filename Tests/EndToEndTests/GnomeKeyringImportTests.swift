// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

/// `puffctl import` of keyrings the real gnome-keyring-daemon wrote (issue 25's first "Done
/// when" line): Clients/gnome_keyring.py makes them at test time through secret-tool and
/// secretstorage, the daemon's clock set to 2019 with libfaketime, a binary keyring for a
/// collection with a password and a textual one for an empty password. What a fresh
/// gnome-keyring-daemon serves from the file over D-Bus is the oracle: after the import, puffd
/// serves every item with the same label, attributes (the `xdg:schema` gnome-keyring reports
/// from the item type included), secret bytes, content type, Created and Modified, read back
/// with python3-secretstorage and secret-tool.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && GnomeKeyringDaemon.installed),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct GnomeKeyringImportTests {
    typealias Served = GnomeKeyringFileTests.ServedItem

    /// The items puffd must serve: each as gnome-keyring served it, its secret as `stored` has it.
    static func expected(_ served: [Served], secretsAsIn stored: [Served]) -> [ImportedItem] {
        served.map { item in
            ImportedItem(
                label: item.label, attributes: item.attributes,
                secretSHA256: stored.first { $0.label == item.label }?.secret.sha256, contentType: item.contentType,
                created: item.created, modified: item.modified)
        }
    }

    /// The fixture set as gnome-keyring serves it really holds the cases, so that
    /// comparing with it proves something.
    static func expectCases(_ served: [Served], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let byLabel = Dictionary(served.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        let everyByte = try GnomeKeyringFileTests.digest(SecureBytes(unwipedCopyOf: GnomeKeyringFileTests.everyByte))
        let large = try GnomeKeyringFileTests.digest(SecureBytes(unwipedCopyOf: GnomeKeyringFileTests.large))
        #expect(served.count == 9, sourceLocation: sourceLocation)
        #expect(byLabel["Ünïcödé ✓ label"]?.attributes["empty"] == "", sourceLocation: sourceLocation)
        #expect(
            byLabel["fifty attributes"]?.attributes.count == 51, "50 and the schema", sourceLocation: sourceLocation)
        #expect(byLabel["every byte"]?.secret == everyByte, sourceLocation: sourceLocation)
        #expect(byLabel["sixty-four KiB"]?.secret == large, sourceLocation: sourceLocation)
        #expect(
            byLabel["explicit schema"]?.attributes["xdg:schema"] == "org.example.Custom", sourceLocation: sourceLocation
        )
        // No xdg:schema was stored with these: gnome-keyring reports the one of the item type.
        #expect(
            byLabel["network"]?.attributes["xdg:schema"] == "org.gnome.keyring.NetworkPassword",
            sourceLocation: sourceLocation)
        #expect(byLabel["note"]?.attributes["xdg:schema"] == "org.gnome.keyring.Note", sourceLocation: sourceLocation)
        #expect(
            byLabel["every byte"]?.attributes["xdg:schema"] == "org.freedesktop.Secret.Generic",
            sourceLocation: sourceLocation)
        // Stored again when the daemon's clock read two days later.
        let again = byLabel["Ünïcödé ✓ label"]
        #expect((again?.modified ?? 0) > (again?.created ?? .max), sourceLocation: sourceLocation)
        // Written by a daemon whose clock read 2019-03-04 and 2019-03-06, years before this run.
        let past: ClosedRange<UInt64> = 1_551_600_000...1_552_000_000
        #expect(
            served.allSatisfy { past.contains($0.created) && past.contains($0.modified) },
            sourceLocation: sourceLocation)
    }

    @Test func aBinaryKeyringTheDaemonWroteArrivesAsGnomeKeyringServesIt() async throws {
        let home = try GnomeKeyringFileTests.Home()
        defer { home.remove() }
        let passcode = GnomeKeyringFileTests.passcode
        try await home.run("make-binary", input: passcode)
        try await home.run("serve", ["login"], input: passcode)
        let served = try home.served("served.json").items
        try Self.expectCases(served)
        let source = home.keyrings.appendingPathComponent("login.keyring").path
        let target = try await ImportTarget()

        let first = try await target.importing(source, password: passcode)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains(ImportTarget.totals(added: 9)), "\(first.output)")
        try await target.expectHolds(Self.expected(served, secretsAsIn: served))
        let large = try await target.secretToolLookup([("kind", "large")])
        #expect(large == Data(GnomeKeyringFileTests.large), "secret-tool reads the 64 KiB secret exactly")

        let second = try await target.importing(source, password: passcode)
        #expect(second.output.contains(ImportTarget.totals(added: 0, unchanged: 9)), "\(second.output)")
        try await target.expectHolds(Self.expected(served, secretsAsIn: served))
    }

    @Test func aTextualKeyringTheDaemonWroteArrivesAsItWasStored() async throws {
        let home = try GnomeKeyringFileTests.Home()
        defer { home.remove() }
        try await home.run("make-textual")
        try await home.run("serve", ["plain"])
        let served = try home.served("served.json").items
        // The secrets as the writing daemon served them: a fresh daemon reads some back changed
        // (leading spaces dropped, backslash escapes applied; docs/migration.md), Puff as stored.
        let written = try home.served("written.json").items
        try Self.expectCases(served)
        let source = home.keyrings.appendingPathComponent("plain.keyring").path
        let target = try await ImportTarget()

        // An empty password: nothing is asked.
        let result = try await target.importing(source, password: nil)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(ImportTarget.totals(added: 9)), "\(result.output)")
        try await target.expectHolds(Self.expected(served, secretsAsIn: written))
        let raw = try await target.secretToolLookup([("kind", "no label")])
        #expect(
            raw == Data("  leading spaces, a \\ backslash and a tab\t".utf8),
            "stored bytes, not gnome-keyring's reading")
        let unicode = try await target.secretToolLookup([("service", "mail"), ("user", "alice")])
        #expect(unicode == Data("hunter2 ✓".utf8))
    }
}
