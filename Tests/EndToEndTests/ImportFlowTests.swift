// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import` through the built puffd and puffctl, from files the real `secret-tool` made
/// with libsecret's file backend, read back with python3-secretstorage and secret-tool
/// (docs/migration.md). Secrets are compared inside the checker, never printed.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ImportFlowTests {
    let commands = VaultFlowTests()

    struct Expected: Encodable {
        var label: String
        var attributes: [String: String]
        var secretHex: String
        var created: UInt64?
        var modified: UInt64?

        enum CodingKeys: String, CodingKey {
            case label, attributes, created, modified
            case secretHex = "secret_hex"
        }

        init(_ label: String, _ attributes: [String: String], _ secret: [UInt8], time: UInt64? = nil) {
            self.label = label
            self.attributes = attributes
            secretHex = secret.map { String(format: "%02x", $0) }.joined()
            created = time
            modified = time
        }
    }

    static let allBytes = (0...255).map { UInt8($0) }
    static let large = (0..<(64 * 1024)).map { UInt8(0x21 + $0 % 90) }
    static let many = (0..<50).map { ("attribute-\($0)", "value \($0) ü") }
    /// 2019-03-04 05:06:07 UTC.
    static let past: UInt64 = 1_551_675_967

    /// A libsecret file holding the cases, made by secret-tool (and libsecret's API for
    /// the 64 KiB secret), and what each item must become.
    func source() async throws -> (LibsecretFixture, [Expected]) {
        let fixture = try LibsecretFixture(password: "source pass")
        try await fixture.store(
            label: "Mail für Jürgen 🔑", attributes: [("service", "mail"), ("empty", "")], secret: Array("hunter2".utf8),
            at: "2019-03-04 05:06:07")
        try await fixture.store(label: "every byte", attributes: [("kind", "bytes")], secret: Self.allBytes)
        try await fixture.storeThroughLibsecret(
            schema: "io.puff.Large", label: "large", attributes: ["kind": "large"],
            text: String(decoding: Self.large, as: UTF8.self))
        try await fixture.store(label: "fifty", attributes: Self.many, secret: Array("m".utf8))
        return (
            fixture,
            [
                Expected(
                    "Mail für Jürgen 🔑", ["service": "mail", "empty": ""], Array("hunter2".utf8), time: Self.past),
                Expected("every byte", ["kind": "bytes"], Self.allBytes),
                Expected("large", ["kind": "large"], Self.large),
                Expected("fifty", Dictionary(uniqueKeysWithValues: Self.many), Array("m".utf8)),
            ]
        )
    }

    func daemon() async throws -> TestDaemon {
        let puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "vault pass\n").status == 0)
        return puffd
    }

    /// Runs import_check.py: the collection holds exactly `expected`.
    func expectHolds(_ puffd: TestDaemon, _ expected: [Expected], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let script = ClientDriver.directory.appendingPathComponent("import_check.py").path
        let check = try await ChildProcess.run(
            ClientDriver.python, [script, "login"], environment: puffd.clientEnvironment,
            input: try JSONEncoder().encode(expected))
        #expect(check.status == 0, "\(check.output)", sourceLocation: sourceLocation)
    }

    func importing(_ puffd: TestDaemon, _ path: String, _ extra: [String] = [], input: String = "source pass\n")
        async throws -> ChildProcess.Result
    {
        try await commands.puffctl(
            puffd, ["import", path, "--into", "login", "--source-passcode-fd", "0"] + extra, input: input)
    }

    @Test func aLibsecretFileArrivesExactlyAndASecondImportChangesNothing() async throws {
        let (fixture, expected) = try await source()
        defer { fixture.remove() }
        let puffd = try await daemon()

        let first = try await importing(puffd, fixture.path)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("4 added, 0 replaced, 0 unchanged, 0 skipped"), "\(first.output)")
        try await expectHolds(puffd, expected)
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "kind", "bytes"], environment: puffd.clientEnvironment)
        let same = lookup.bytes == Data(Self.allBytes)
        #expect(same, "secret-tool lookup did not return all 256 byte values")

        let second = try await importing(puffd, fixture.path, ["--json"])
        #expect(second.status == 0, "\(second.output)")
        let lines = second.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.filter { $0["outcome"] as? String == "unchanged" }.count == 4, "\(second.output)")
        #expect(lines.last?["unchanged"] as? Int == 4 && lines.last?["added"] as? Int == 0)
        try await expectHolds(puffd, expected)
    }

    @Test func aWrongPasswordOrAFormatThatDoesNotFitFailsAndChangesNothing() async throws {
        let (fixture, _) = try await source()
        defer { fixture.remove() }
        let puffd = try await daemon()

        let wrong = try await importing(puffd, fixture.path, input: "not the password\n")
        #expect(wrong.status == 2, "\(wrong.output)")
        #expect(wrong.output.contains("the password does not open the source; nothing was imported"))
        let misnamed = try await importing(puffd, fixture.path, ["--format", "bitwarden"])
        #expect(misnamed.status == 1, "\(misnamed.output)")
        #expect(misnamed.output.contains("nothing was imported"), "\(misnamed.output)")
        try await expectHolds(puffd, [])
    }

    @Test func aDryRunPrintsThePlanAndChangesNothing() async throws {
        let (fixture, _) = try await source()
        defer { fixture.remove() }
        let puffd = try await daemon()

        let plan = try await importing(puffd, fixture.path, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains("added     'every byte'"), "\(plan.output)")
        #expect(plan.output.contains("nothing was changed (--dry-run)"), "\(plan.output)")
        try await expectHolds(puffd, [])
    }

    @Test func aLockedCollectionIsUnlockedWithItsPasscodeFirst() async throws {
        let (fixture, expected) = try await source()
        defer { fixture.remove() }
        let puffd = try await daemon()
        #expect(try await commands.puffctl(puffd, ["lock"]).status == 0)

        // The source's password first, then the collection's, both on standard input.
        let result = try await importing(puffd, fixture.path, ["--stdin"], input: "source pass\nvault pass\n")
        #expect(result.status == 0, "\(result.output)")
        try await expectHolds(puffd, expected)
    }
}
