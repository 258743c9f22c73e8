// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import` of a libsecret file-backend keyring whose every item the real tools wrote
/// with their clock years back (issue 25's first "Done when" line): `secret-tool store` and
/// libsecret's own API (python3-gi) under libfaketime, one item stored twice so that Created and
/// Modified differ. libsecret's file backend reading the file back is the oracle; puffd's items are
/// read over D-Bus with python3-secretstorage and secret-tool. ImportFlowTests covers the
/// command's other behaviour (a second import, a wrong password, the dry run, a locked target).
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LibsecretImportTests {
    static let everyByte = (0...255).map { UInt8($0) }
    static let large = String(repeating: "€", count: 21845) + "x"
    static let fifty = (0..<50).map { ("attribute-\($0)", "value \($0) ü") }

    /// The fixture: each case of the issue, every item written under a clock years back.
    func source() async throws -> LibsecretFixture {
        let fixture = try LibsecretFixture(password: "source pass ✓")
        try await fixture.store(
            label: "Mail für Jürgen 🔑", attributes: [("service", "mail"), ("empty", "")], secret: Array("first".utf8),
            at: "2016-01-02 03:04:05")
        // The same attributes again: libsecret replaces the secret, keeps Created, sets Modified.
        try await fixture.store(
            label: "Mail für Jürgen 🔑", attributes: [("service", "mail"), ("empty", "")],
            secret: Array("hunter2 ✓".utf8), at: "2019-03-04 05:06:07")
        try await fixture.store(
            label: "every byte", attributes: [("kind", "bytes")], secret: Self.everyByte, at: "2017-01-01 00:00:00")
        try await fixture.store(
            label: "explicit schema", attributes: [("xdg:schema", "org.example.Custom"), ("id", "7")],
            secret: Array("pässwörd".utf8), at: "2017-01-01 00:00:01")
        try await fixture.store(
            label: "fifty", attributes: Self.fifty, secret: Array("m".utf8), at: "2017-01-01 00:00:02")
        try await fixture.storeThroughLibsecret(
            schema: "io.puff.Large", label: "sixty-four KiB", attributes: ["kind": "large"], text: Self.large,
            at: "2017-01-01 00:00:03")
        try await fixture.storeThroughLibsecret(
            schema: "io.puff.Typed", label: "typed", attributes: ["kind": "typed"], text: "ünï",
            contentType: "application/x-puff-test", at: "2017-01-01 00:00:04")
        return fixture
    }

    /// libsecret's reading really holds the cases.
    static func expectCases(_ items: [LibsecretFixture.Item]) {
        let byLabel = Dictionary(items.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(items.count == 6)
        #expect(byLabel["Mail für Jürgen 🔑"]?.attributes["empty"] == "")
        // FAKETIME "@…" starts the clock there and lets it run, so a Python slow to start on a busy
        // machine stamps a few seconds later (seen: one second at load 29).
        let written = (created: 1_451_703_845 as UInt64, modified: 1_551_675_967 as UInt64)
        let mail = byLabel["Mail für Jürgen 🔑"]
        #expect((written.created..<written.created + 600).contains(mail?.created ?? 0))
        #expect((written.modified..<written.modified + 600).contains(mail?.modified ?? 0))
        #expect(byLabel["every byte"]?.secretHex == ImportedItem.hex(everyByte))
        #expect(byLabel["sixty-four KiB"]?.secretHex == ImportedItem.hex(Array(large.utf8)))
        #expect(Array(large.utf8).count == 65_536)
        #expect(byLabel["fifty"]?.attributes.count == 50)
        #expect(byLabel["explicit schema"]?.attributes["xdg:schema"] == "org.example.Custom")
        #expect(items.allSatisfy { $0.created < 1_552_000_000 && $0.modified < 1_552_000_000 })
    }

    @Test func aLibsecretFileWrittenYearsAgoArrivesAsLibsecretReadsIt() async throws {
        let fixture = try await source()
        defer { fixture.remove() }
        let oracle = try await fixture.items()
        Self.expectCases(oracle)
        let target = try await ImportTarget()

        let result = try await target.importing(fixture.path, password: fixture.password)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(ImportTarget.totals(added: oracle.count)), "\(result.output)")
        try await target.expectHolds(
            oracle.map {
                ImportedItem(
                    label: $0.label, attributes: $0.attributes, secretHex: $0.secretHex, contentType: $0.contentType,
                    created: $0.created, modified: $0.modified)
            })
        let bytes = try await target.secretToolLookup([("kind", "bytes")])
        #expect(bytes == Data(Self.everyByte), "secret-tool reads all 256 byte values exactly")
    }
}
