// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Item settings (record kind 4): sealed in the item's collection, one record per change,
/// compacted to the newest of each live item, dropped with the item (docs/vault-format.md).
struct ItemSettingsRecordTests {
    static let tool = "/usr/bin/secret-tool"
    static let digest = [UInt8](repeating: 0xAB, count: 32)

    @Test func settingsReadBackAsWrittenRuleForRule() throws {
        let settings = ItemSettings(
            isProtected: true,
            rules: [
                .init(executable: Self.tool, digest: Self.digest, allows: true),
                .init(executable: "/usr/bin/python3.11", digest: nil, allows: false),
            ])
        #expect(try ItemSettings(parsing: settings.plaintext()) == settings)
        #expect(try ItemSettings(parsing: ItemSettings().plaintext()) == ItemSettings())
    }

    @Test(arguments: [
        ([2, 0, 0, 0, 0] as [UInt8], "settings flags"),  // an unknown flag
        ([0, 65, 0, 0, 0], "rule count"),  // more rules than an item keeps
        ([0, 1, 0, 0, 0, 1, 0, 0, 0, 0x2F, 3, 0, 0, 0, 1, 2, 3, 1], "digest"),  // a digest that is not 32 bytes
        ([0, 1, 0, 0, 0, 1, 0, 0, 0, 0x2F, 0, 0, 0, 0, 3], "verdict"),  // neither allow nor deny
        ([0, 0, 0, 0, 0, 9], "trailing bytes"),
    ])
    func malformedSettingsAreRefused(_ bytes: [UInt8], what: String) {
        let error = #expect(throws: VaultFormatError.self) {
            try ItemSettings(parsing: SecureBytes(unwipedCopyOf: bytes))
        }
        guard case .malformed(_, let named)? = error else {
            Issue.record("expected a malformed-record error, got \(String(describing: error))")
            return
        }
        #expect(named == what)
    }

    @Test func aSettingsChangeAppendsOneRecordAndSurvivesARestart() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["service": "mail"])
        let appends = await fixture.storage.appendCount
        try await fixture.service.setProtected(true, of: item)
        try await fixture.service.setAccess(false, for: Self.tool, of: item)
        #expect(await fixture.storage.appendCount == appends + 2)

        let restarted = try await fixture.restarted()
        // Locked and never opened: the item is listed from its tags, its settings not needed yet.
        #expect(await restarted.service.itemIDs(in: .login) == [item])
        try await restarted.unlock(.login, "correct horse")
        let settings = try await restarted.service.accessEntries([item]).first?.settings
        #expect(
            settings
                == ItemSettings(isProtected: true, rules: [.init(executable: Self.tool, digest: nil, allows: false)]))
    }

    @Test func compactionKeepsTheNewestSettingsOfLiveItemsAndDropsThoseOfDeletedOnes() async throws {
        let fixture = try await Fixture.persistent()
        let kept = try await fixture.store(["n": "kept"])
        let deleted = try await fixture.store(["n": "deleted"])
        for flag in [true, false, true] { try await fixture.service.setProtected(flag, of: kept) }
        try await fixture.service.setProtected(true, of: deleted)
        try await fixture.service.deleteItem(deleted)
        _ = try await fixture.service.compact(.login)

        let records = try await fixture.parsedRecords(of: try await fixture.space(of: .login))
        #expect(records.filter { $0.kind == .itemSettings }.map(\.number) == [kept.number])
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "correct horse")
        #expect(try await restarted.service.accessEntries(nil).map(\.item) == [kept])
        #expect(try await restarted.service.accessEntries([kept]).first?.settings.isProtected == true)
    }

    @Test func aCollectionCompactedAfterARestartKeepsItsSettingsSealedAgain() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["n": "1"])
        for flag in [true, false, true] { try await fixture.service.setProtected(flag, of: item) }
        let restarted = try await fixture.restarted()
        let refused = await serviceError { () async throws(ServiceError) in
            _ = try await restarted.service.compact(.login)
        }
        #expect(refused == .isLocked, "sealing records again needs the key")
        try await restarted.unlock(.login, "correct horse")
        _ = try await restarted.service.compact(.login)
        let again = try await restarted.restarted()
        try await again.unlock(.login, "correct horse")
        #expect(try await again.service.accessEntries([item]).first?.settings.isProtected == true)
        #expect(await again.service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
    }

    @Test func anItemKeepsRulesForAtMostSixtyFourExecutables() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["n": "1"])
        for number in 0..<ItemSettings.maxRules {
            try await fixture.service.setAccess(true, for: "/bin/tool\(number)", of: item)
        }
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.setAccess(true, for: "/bin/one-too-many", of: item)
        }
        #expect(error == .limitExceeded("an item keeps at most 64 access rules (executables and apps)"))
        // Replacing an existing executable's rule is not a new one.
        try await fixture.service.setAccess(false, for: "/bin/tool0", of: item)
    }

    @Test func revokingForgetsOneRuleOrEvery() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["n": "1"])
        try await fixture.service.setAccess(true, for: Self.tool, of: item)
        try await fixture.service.setAccess(false, for: "/usr/bin/python3", of: item)
        try await fixture.service.revokeAccess(of: item, executable: Self.tool)
        #expect(
            try await fixture.service.accessEntries([item]).first?.settings.rules.map(\.executable) == [
                "/usr/bin/python3"
            ])
        let missing = await serviceError { () throws(ServiceError) in
            try await fixture.service.revokeAccess(of: item, executable: Self.tool)
        }
        #expect(missing == .noSuchObject)
        try await fixture.service.revokeAccess(of: item, executable: nil)
        #expect(try await fixture.service.accessEntries([item]).first?.settings.rules == [])
    }

    /// Protects an item of a new vault and gives it two rules for one executable, then compacts;
    /// returns once `first` (and its lock on the folder) can go.
    static func writeSettings(with first: SecretService) async throws -> ItemID {
        try await first.initialize(passcode: Fixture.passcode("file pass"))
        let session = try await first.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        let item = try await first.createItem(
            in: .login, label: "mail", attributes: ["n": "1"], type: "",
            secret: Fixture.plain(Array("x".utf8), session: session.session), replace: false, client: Fixture.alice)
        try await first.setProtected(true, of: item)
        try await first.setAccess(true, for: Self.tool, of: item)
        try await first.setAccess(false, for: Self.tool, of: item)
        _ = try await first.compact(.login)
        return item
    }

    @Test func theFileStoreKeepsSettingsAcrossARestartAndACompaction() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-settings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        func service() async throws -> SecretService {
            try await SecretService(
                store: try await FileRecordStore.reopening(folder: folder.path), mode: .persistent(kdf: .interactive),
                prompter: ScriptedPrompter(), promptTimeout: .seconds(30), clock: ManualClock(), now: { 1_700_000_000 },
                logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
        }
        let item = try await Self.writeSettings(with: try await service())
        let second = try await service()
        _ = try await second.unlock(.login, passcode: Fixture.passcode("file pass"))
        #expect(
            try await second.accessEntries([item]).first?.settings
                == ItemSettings(isProtected: true, rules: [.init(executable: Self.tool, digest: nil, allows: false)]))
    }
}
