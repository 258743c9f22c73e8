// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Testing

/// The committed vault with access rules (`Fixtures/vault-v3-rules`): one item of `login` with
/// a kind 4 record (protected, an executable's deny rule) and a kind 5 record (an app's deny and
/// another app's allow), written once by ``writesTheRulesVault()`` through the real service and
/// file store, then opened ever after. Record kinds 4 and 5 did not bump the format version, so
/// no `vault-vN` holds them; a failure here means their layout broke: never rewrite the fixture.
@Suite struct GoldenRulesVaultTests {
    static let destination = ProcessInfo.processInfo.environment["PUFF_WRITE_GOLDEN_RULES"]
    static let passcode = "golden-rules-passcode"
    static let tool = "/usr/bin/secret-tool"
    static let app = AppID(rawValue: "org.example.App")!
    static let other = AppID(rawValue: "org.example.Other")!
    static let item = ItemID(collection: .login, number: 1)

    /// The item's settings as written.
    static let settings = ItemSettings(
        isProtected: true, rules: [.init(executable: tool, digest: nil, allows: false)],
        appRules: [.init(app: app, allows: false), .init(app: other, allows: true)])

    static var folder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/vault-v3-rules")
            .path
    }

    static func text(_ text: String) -> SecureBytes { SecureBytes(unwipedCopyOf: Array(text.utf8)) }

    @Test func theRulesVaultOpensWithItsProtectionExecutableRuleAndAppRules() async throws {
        let copy = try GoldenVault.copy(Self.folder)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let service = try await GoldenVault.service(folder: copy, time: SettableTime(GoldenVault.start), logs: .init())
        _ = try await service.unlock(.login, passcode: Self.text(Self.passcode))
        #expect(try await service.accessEntries([Self.item]).first?.settings == Self.settings)
        #expect(await service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        // The records' clear prefixes: two of kind 4 (protect, then the executable's rule) and two
        // of kind 5 (one per app rule), all for item 1; the newest of each kind holds.
        let journal = try #require(try GoldenVault.files(in: copy).first { $0.hasSuffix(".journal") })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(copy)/\(journal)"))
        let records = try JournalFraming.parse(Array(bytes), file: journal).records.map {
            try VaultRecord(decoding: $0.bytes)
        }
        #expect(records.filter { $0.kind == .itemSettings }.map(\.number) == [1, 1])
        #expect(records.filter { $0.kind == .appRules }.map(\.number) == [1, 1])
    }

    @Test func anAppDenyRuleOfTheRulesVaultRefusesThatAppAfterAnUnlock() async throws {
        let copy = try GoldenVault.copy(Self.folder)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let service = try await GoldenVault.service(folder: copy, time: SettableTime(GoldenVault.start), logs: .init())
        _ = try await service.unlock(.login, passcode: Self.text(Self.passcode))
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        let app = Caller(Fixture.alice, executable: "/usr/bin/xdg-dbus-proxy", sandbox: .app(Self.app, instance: nil))
        let refused = await serviceError { () throws(ServiceError) in
            try await service.secret(of: Self.item, session: session.session, caller: app)
        }
        #expect(refused == .readRefused(.deniedByRule))
    }

    @Test(.enabled(if: destination != nil, "set PUFF_WRITE_GOLDEN_RULES=<folder> to write the rules vault"))
    func writesTheRulesVault() async throws {
        let target = "\(try #require(Self.destination))/vault-v3-rules"
        try #require(
            !FileManager.default.fileExists(atPath: target), "\(target) exists; golden files are never rewritten")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("puff-rules-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        do {
            let service = try await GoldenVault.service(
                folder: scratch, time: SettableTime(GoldenVault.start), logs: .init())
            try await service.initialize(passcode: Self.text(Self.passcode))
            let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
            let item = try await service.createItem(
                in: .login, label: "mail", attributes: ["service": "mail"], type: "",
                secret: Fixture.plain(Array("rules-secret".utf8), session: session.session), replace: false,
                client: Fixture.alice)
            #expect(item == Self.item)
            try await service.setProtected(true, of: item)
            try await service.setAccess(false, for: Self.tool, of: item)
            try await service.setAppAccess(false, for: Self.app, of: item)
            try await service.setAppAccess(true, for: Self.other, of: item)
        }
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        for name in try GoldenVault.files(in: scratch) where name != "lock" {
            try FileManager.default.copyItem(atPath: "\(scratch)/\(name)", toPath: "\(target)/\(name)")
        }
    }
}
