// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Synchronization
import Testing

/// A prompter that reaches nobody and counts the questions it was asked anyway.
private actor UnreachablePrompter: Prompter {
    static let kind = "unreachable"
    private(set) var asked = 0

    func prompt(_ request: PromptRequest) async throws -> PromptReply {
        asked += 1
        return .dismissed
    }

    func canReachPerson() async -> Bool { false }
}

/// The Secret portal's key for an app (docs/design/sandboxed-apps.md §2.3): one item of the
/// default collection per app, made once, durable before it is handed out, and out of sandboxed
/// callers' reach over the Secret Service.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct PortalKeyTests {
    static let app = AppID(rawValue: "org.example.App")!
    static let other = AppID(rawValue: "org.example.Other")!
    /// xdg-desktop-portal, as the bus sees it.
    static let portal = Caller(ClientID(":1.4"), executable: "/usr/libexec/xdg-desktop-portal", pid: 77)
    /// An app calling the Secret Service itself, through its xdg-dbus-proxy.
    static let sandboxed = Caller(
        ClientID(":1.30"), executable: "/usr/bin/xdg-dbus-proxy", pid: 78, sandbox: .app(other, instance: nil))

    /// The key's bytes, or nil (recording why) for any other answer.
    static func key(_ answer: PortalAnswer) -> [UInt8]? {
        guard case .key(let key) = answer else {
            Issue.record("expected a key, got \(answer)")
            return nil
        }
        return key.unprotectedArray()
    }

    static func isCancelled(_ answer: PortalAnswer) -> Bool {
        if case .cancelled = answer { true } else { false }
    }

    static func keyItems(_ service: SecretService) async throws -> [ItemID] {
        try await service.searchItems(["xdg:schema": SecretService.portalSchema]).unlocked
    }

    @Test func oneAppGetsTheSameSixtyFourBytesEveryTimeFromOneItem() async throws {
        let fixture = try await Fixture.persistent()
        let first = try #require(Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal)))
        let second = try #require(Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal)))
        #expect(first.count == 64)
        #expect(first == second)
        let items = try await Self.keyItems(fixture.service)
        #expect(items.count == 1)
        let info = try await fixture.service.itemInfo(try #require(items.first))
        #expect(info.attributes == ["app_id": "org.example.App", "xdg:schema": SecretService.portalSchema])
        #expect(items.first?.collection == .login, "the key lives in the default collection")
    }

    @Test func anotherAppGetsAnotherKey() async throws {
        let fixture = try await Fixture.persistent()
        let mine = Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal))
        let theirs = Self.key(await fixture.service.portalKey(for: Self.other, caller: Self.portal))
        #expect(mine != nil && theirs != nil && mine != theirs)
        #expect(try await Self.keyItems(fixture.service).count == 2)
    }

    @Test func theKeySurvivesARestart() async throws {
        let fixture = try await Fixture.persistent()
        let before = Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal))
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "correct horse")
        let after = Self.key(await restarted.service.portalKey(for: Self.app, caller: Self.portal))
        #expect(before != nil && before == after)
    }

    @Test func twoFirstCallsAtOnceMakeOneItemAndGetOneKey() async throws {
        let fixture = try await Fixture.persistent()
        let service = fixture.service
        // The first call's key is being queued when the second one asks: it waits for the turn.
        // (A memory store's writes are durable at once, so this cannot hold the first key between
        // queued and durable; PortalFlowTests runs the two calls on a file vault.)
        await fixture.storage.holdNextWrite()
        let first = Task { await service.portalKey(for: Self.app, caller: Self.portal) }
        await fixture.storage.waitUntilHolding()
        let second = Task { await service.portalKey(for: Self.app, caller: Self.portal) }
        #expect(await poll(limit: HangGuard.step) { await service.writersWaiting >= 1 })
        await fixture.storage.releaseHeldWrite()
        let keys = [Self.key(await first.value), Self.key(await second.value)]
        #expect(keys[0] != nil && keys[0] == keys[1])
        #expect(try await Self.keyItems(service).count == 1)
    }

    @Test func anItemWithOnlyTheAppsIDIsNotTakenForItsKey() async throws {
        let fixture = try await Fixture.persistent()
        let password = try await fixture.store(["app_id": "org.example.App"], secret: "app's own password")
        let key = try #require(Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal)))
        #expect(key != Array("app's own password".utf8))
        #expect(try await Self.keyItems(fixture.service).count == 1)
        #expect(try await fixture.holds(password, "app's own password"))
    }

    @Test func aLockedCollectionWithNobodyToAskIsCancelledAtOnceAndAsksNobody() async throws {
        let fixture = try await Fixture.persistent()
        let prompter = UnreachablePrompter()
        let service = try await SecretService(
            store: fixture.storage, mode: .persistent(kdf: .interactive), prompter: prompter,
            promptTimeout: .seconds(3600), clock: ManualClock(), now: { 1_700_000_000 },
            logger: .init(label: "portal-test") { _ in SwiftLogNoOpLogHandler() }, events: { _ in })
        let appends = await fixture.storage.appendCount
        #expect(Self.isCancelled(await service.portalKey(for: Self.app, caller: Self.portal)))
        #expect(await prompter.asked == 0)
        #expect(await fixture.storage.appendCount == appends, "no key was made")
        #expect(try await service.collectionInfo(.login).isLocked)
    }

    @Test func aLockedCollectionIsUnlockedThroughAQuestionNamingTheApp() async throws {
        let fixture = try await Fixture(
            script: [.reply(.passcode(Fixture.passcode("correct horse")))], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        try await fixture.service.lock([.login])
        let key = Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal))
        #expect(key?.count == 64)
        let request = try #require(await fixture.prompter.requests.first)
        #expect(request.application == "org.example.App")
        guard case .unlock(let collection, _, _) = request.purpose else {
            Issue.record("asked \(request.purpose), not to unlock")
            return
        }
        #expect(collection == .login)
    }

    @Test func aDismissedUnlockIsCancelled() async throws {
        let fixture = try await Fixture(script: [.reply(.dismissed)], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        try await fixture.service.lock([.login])
        #expect(Self.isCancelled(await fixture.service.portalKey(for: Self.app, caller: Self.portal)))
    }

    @Test func aProtectedKeyIsConfirmedEveryTimeAskingForTheAppAndAStrictModeAsksNothingElse() async throws {
        let fixture = try await Fixture(
            script: [.reply(.confirmed), .reply(.dismissed)], mode: .persistent(kdf: .interactive),
            access: AccessConfiguration(mode: .strict))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let made = Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal))
        #expect(await fixture.prompter.requests.isEmpty, "strict mode refuses no app its own key")
        let id = try #require(try await Self.keyItems(fixture.service).first)
        try await fixture.service.setProtected(true, of: id)
        #expect(Self.key(await fixture.service.portalKey(for: Self.app, caller: Self.portal)) == made)
        #expect(Self.isCancelled(await fixture.service.portalKey(for: Self.app, caller: Self.portal)))
        let requests = await fixture.prompter.requests
        #expect(requests.map(\.application) == ["org.example.App", "org.example.App"])
        #expect(requests.allSatisfy { if case .confirmRead = $0.purpose { true } else { false } })
    }

    @Test func eachAnswerIsAuditedAsPortalKeyUnderTheAppsName() async throws {
        let fixture = try await Fixture.persistent()
        _ = await fixture.service.portalKey(for: Self.app, caller: Self.portal)
        await fixture.service.recordPortalRefusal(app: "org.victim.App", caller: Self.sandboxed)
        let entries = try await fixture.service.auditEntries().entries.map {
            "\($0.action) \($0.result) \($0.label) \($0.client)"
        }
        #expect(
            entries == [
                "create allowed Portal key of org.example.App :1.4",
                "portal-key allowed org.example.App :1.4",
                "portal-key refused org.victim.App :1.30",
            ])
    }

    @Test func aSandboxedCallerMayNotReadChangeOrDeleteAPortalKeyOverTheSecretService() async throws {
        let fixture = try await Fixture.persistent()
        let service = fixture.service
        _ = await service.portalKey(for: Self.app, caller: Self.portal)
        let id = try #require(try await Self.keyItems(service).first)
        let session = try await fixture.plainSession(Self.sandboxed.client)
        let refused = ServiceError.readRefused(.portalKey)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.secret(of: id, session: session, caller: Self.sandboxed)
            } == refused)
        #expect(try await service.secrets(for: [id], session: session, caller: Self.sandboxed).isEmpty)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.setSecret(
                    Fixture.plain([1, 2, 3], session: session), of: id, client: Self.sandboxed.client,
                    caller: Self.sandboxed)
            } == refused)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.setLabel("mine", of: id, caller: Self.sandboxed)
            } == refused)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.deleteItem(id, caller: Self.sandboxed)
            }
                == refused)
        // Nor may it plant a key for an app that has none yet: it would know that app's key.
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.createItem(
                    in: .login, label: "planted",
                    attributes: ["app_id": "org.victim.App", "xdg:schema": SecretService.portalSchema], type: "",
                    secret: Fixture.plain([1, 2, 3], session: session), replace: false, client: Self.sandboxed.client,
                    caller: Self.sandboxed)
            } == refused)
        #expect(try await Self.keyItems(service) == [id])
        // A program on the host (Seahorse, puffctl, a backup) goes through the usual gate.
        let host = Caller(ClientID(":1.50"), executable: "/usr/bin/seahorse", pid: 90)
        let hostSession = try await fixture.plainSession(host.client)
        #expect(try await service.secret(of: id, session: hostSession, caller: host).value.count == 64)
    }
}
