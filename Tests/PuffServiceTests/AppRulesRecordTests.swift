// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Testing

/// App rules (record kind 5, design sandboxed-apps.md §4.1): sealed beside the item's kind 4
/// record, the newest of each kind counting, both ended by the item's deletion; and the gate
/// applying them to sandboxed callers.
struct AppRulesRecordTests {
    static let app = AppID(rawValue: "org.example.App")!
    static let other = AppID(rawValue: "org.example.Other")!
    static let tool = "/usr/bin/secret-tool"

    static func sandboxed(_ app: AppID, _ client: ClientID = Fixture.alice) -> Caller {
        Caller(client, executable: "/usr/bin/xdg-dbus-proxy", pid: nil, sandbox: .app(app, instance: nil))
    }

    @Test func appRulesReadBackAsWritten() throws {
        let settings = ItemSettings(appRules: [
            .init(app: Self.app, allows: true), .init(app: Self.other, allows: false),
        ])
        #expect(try ItemSettings.appRules(parsing: settings.appRulesPlaintext()) == settings.appRules)
        #expect(try ItemSettings.appRules(parsing: ItemSettings().appRulesPlaintext()) == [])
        // `u32 1 | string "org.example.App" | u8 2`
        let bytes: [UInt8] = [1, 0, 0, 0, 15, 0, 0, 0] + Array("org.example.App".utf8) + [2]
        #expect(
            ItemSettings(appRules: [.init(app: Self.app, allows: false)]).appRulesPlaintext().unprotectedArray()
                == bytes)
    }

    /// `string name | u8 verdict`, as a kind 5 record lays one rule out.
    static func rule(_ name: String, _ verdict: UInt8) -> [UInt8] {
        let bytes: [UInt8] = Array(name.utf8)
        let length: [UInt8] = [UInt8(bytes.count), 0, 0, 0]
        return length + bytes + [verdict]
    }

    static let malformed: [([UInt8], String)] = [
        ([65, 0, 0, 0], "app rule count"),  // more rules than an item keeps
        ([1, 0, 0, 0] + rule("org.app", 1), "app id"),  // two elements: not an app id
        ([1, 0, 0, 0] + rule("a.b.1c", 1), "app id"),
        ([1, 0, 0, 0] + rule("a.b.c", 3), "verdict"),
        ([2, 0, 0, 0] + rule("a.b.c", 1) + rule("a.b.c", 2), "app id"),  // one app twice
        ([0, 0, 0, 0, 9], "trailing bytes"),
    ]

    @Test(arguments: malformed)
    func malformedAppRulesAreRefused(_ bytes: [UInt8], what: String) {
        let error = #expect(throws: VaultFormatError.self) {
            try ItemSettings.appRules(parsing: SecureBytes(unwipedCopyOf: bytes))
        }
        guard case .malformed(_, let named)? = error else {
            Issue.record("expected a malformed-record error, got \(String(describing: error))")
            return
        }
        #expect(named == what)
    }

    @Test func anAppRuleIsAKindFiveRecordBesideAnUnchangedKindFourOne() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["service": "mail"])
        try await fixture.service.setProtected(true, of: item)
        try await fixture.service.setAccess(false, for: Self.tool, of: item)
        let space = try await fixture.space(of: .login)
        let before = try await fixture.parsedRecords(of: space).filter { $0.kind == .itemSettings }
        try await fixture.service.setAppAccess(false, for: Self.app, of: item)

        let records = try await fixture.parsedRecords(of: space)
        #expect(records.filter { $0.kind == .appRules }.map(\.number) == [item.number])
        #expect(records.filter { $0.kind == .itemSettings }.map { $0.encoded() } == before.map { $0.encoded() })
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "correct horse")
        #expect(
            try await restarted.service.accessEntries([item]).first?.settings
                == ItemSettings(
                    isProtected: true, rules: [.init(executable: Self.tool, digest: nil, allows: false)],
                    appRules: [.init(app: Self.app, allows: false)]))
    }

    @Test func compactionKeepsTheNewestRecordOfEachKindAndADeletionEndsBoth() async throws {
        let fixture = try await Fixture.persistent()
        let kept = try await fixture.store(["n": "kept"])
        let deleted = try await fixture.store(["n": "deleted"])
        try await fixture.service.setProtected(true, of: kept)
        for allows in [true, false] { try await fixture.service.setAppAccess(allows, for: Self.app, of: kept) }
        try await fixture.service.setAppAccess(false, for: Self.other, of: deleted)
        try await fixture.service.setProtected(true, of: deleted)
        try await fixture.service.deleteItem(deleted)
        _ = try await fixture.service.compact(.login)

        let records = try await fixture.parsedRecords(of: try await fixture.space(of: .login))
        #expect(records.filter { $0.kind == .appRules }.map(\.number) == [kept.number])
        #expect(records.filter { $0.kind == .itemSettings }.map(\.number) == [kept.number])
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "correct horse")
        #expect(
            try await restarted.service.accessEntries(nil).map(\.settings) == [
                ItemSettings(isProtected: true, appRules: [.init(app: Self.app, allows: false)])
            ])
        #expect(await restarted.service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
    }

    @Test func anAppDenyRuleRefusesThatAppAndNoOtherCaller() async throws {
        let fixture = try await Fixture(access: AccessConfiguration(mode: .open))
        let item = try await fixture.store(["service": "mail"])
        try await fixture.service.setAppAccess(false, for: Self.app, of: item)
        let session = try await fixture.plainSession()

        let refused = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed(Self.app))
        }
        #expect(refused == .readRefused(.deniedByRule))
        _ = try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed(Self.other))
        _ = try await fixture.service.secret(
            of: item, session: session, caller: Caller(Fixture.alice, executable: "/usr/bin/xdg-dbus-proxy"))
        let unverified = Caller(Fixture.alice, executable: "/usr/bin/xdg-dbus-proxy", sandbox: .unverified("ESRCH"))
        let escaped = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(of: item, session: session, caller: unverified)
        }
        #expect(escaped == .readRefused(.deniedByRule))
    }

    @Test func alwaysAndDenyBecomeAppRulesForAnAppAndNothingForAnUnverifiedCaller() async throws {
        let fixture = try await Fixture(
            script: [.reply(.access(.always)), .reply(.access(.always)), .reply(.access(.deny))],
            access: AccessConfiguration(mode: .ask))
        let item = try await fixture.store(["service": "mail"])
        let session = try await fixture.plainSession()
        let unverified = Caller(Fixture.alice, executable: "/usr/bin/python3", sandbox: .unverified("EACCES"))
        _ = try await fixture.service.secret(of: item, session: session, caller: unverified)
        #expect(try await fixture.service.accessEntries([item]).first?.settings == ItemSettings())
        _ = try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed(Self.app))
        _ = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed(Self.other))
        }
        // Not asked again: "always" holds for App.
        _ = try await fixture.service.secret(of: item, session: session, caller: Self.sandboxed(Self.app))

        let settings = try #require(try await fixture.service.accessEntries([item]).first?.settings)
        #expect(settings.appRules == [.init(app: Self.app, allows: true), .init(app: Self.other, allows: false)])
        #expect(settings.rules == [], "no executable rule for a sandboxed or unverified caller")
        #expect(await fixture.prompter.requests.count == 3)
    }

    @Test func revokingAnAppsRuleForgetsItAndAMissingOneIsNoSuchObject() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["n": "1"])
        try await fixture.service.setAppAccess(true, for: Self.app, of: item)
        try await fixture.service.setAccess(true, for: Self.tool, of: item)
        try await fixture.service.revokeAppAccess(of: item, app: Self.app)
        #expect(try await fixture.service.accessEntries([item]).first?.settings.appRules == [])
        let missing = await serviceError { () throws(ServiceError) in
            try await fixture.service.revokeAppAccess(of: item, app: Self.app)
        }
        #expect(missing == .noSuchObject)
        try await fixture.service.setAppAccess(false, for: Self.other, of: item)
        try await fixture.service.revokeAccess(of: item, executable: nil)
        #expect(try await fixture.service.accessEntries([item]).first?.settings == ItemSettings())
    }
}
