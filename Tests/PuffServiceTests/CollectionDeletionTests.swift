// SPDX-License-Identifier: Apache-2.0
import InMemoryLogging
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

@testable import PuffService

/// Deleting a collection needs the person, and is undone by a restore while the kept copy lasts
/// (issue 24 items 18 and 24), on the in-memory store with a scripted prompter.
struct CollectionDeletionTests {
    @Test func aClientsDeleteOfANonEmptyCollectionIsAPromptAndOnlyAConfirmationDeletes() async throws {
        let fixture = try await Fixture(
            script: [.reply(.dismissed), .reply(.confirmed)], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        try await fixture.store(["a": "1"])
        let mallory = ClientID(":1.66")
        let first = try #require(try await fixture.service.deleteCollection(.login, caller: Caller(mallory)))
        #expect(await fixture.service.collections.contains(.login), "nothing happens before the prompt runs")
        try await fixture.service.startPrompt(first, windowID: "", client: mallory)
        #expect(await poll(limit: HangGuard.step) { await fixture.recorder.events.contains { Self.isCompletion($0) } })
        #expect(await fixture.service.collections.contains(.login))
        #expect(
            await fixture.prompter.requests.map(\.purpose) == [
                .deleteCollection(collection: .login, label: "Login", items: 1)
            ])

        let second = try #require(try await fixture.service.deleteCollection(.login, caller: Caller(mallory)))
        try await fixture.service.startPrompt(second, windowID: "", client: mallory)
        #expect(await poll(limit: HangGuard.step) { await !fixture.service.collections.contains(.login) })
        #expect(try await fixture.service.deletedCollections().map(\.itemCount) == [1])
    }

    @Test func anEmptyCollectionOrOneTheCallerCreatedIsDeletedAtOnce() async throws {
        let fixture = try await Fixture()
        let empty = try await fixture.service.createCollectionAtOnce(label: "Empty", alias: nil, client: Fixture.alice)
        #expect(try await fixture.service.deleteCollection(empty, caller: Caller(ClientID(":1.9"))) == nil)
        let own = try await fixture.service.createCollectionAtOnce(label: "Own", alias: nil, client: Fixture.alice)
        try await fixture.store(["a": "1"], in: own)
        #expect(try await fixture.service.deleteCollection(own, caller: Caller(ClientID(":1.9"))) != nil)
        #expect(try await fixture.service.deleteCollection(own, caller: Caller(Fixture.alice)) == nil)
        #expect(await fixture.service.collections == [.login, .session])
    }

    @Test func anUnlockedOneNeedsItsPasscodeOrAConfirmationWhoeverCalls() async throws {
        let fixture = try await Fixture(
            script: [.reply(.dismissed), .reply(.confirmed)], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        try await fixture.store(["a": "1"])
        let refused = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.deleteCollection(.login, passcode: nil, caller: .daemon)
        }
        #expect(
            refused
                == .failed(
                    "nobody confirmed deleting login: give its passcode (--stdin or --passcode-fd), or answer through puffctl agent or pinentry"
                ))
        #expect(await fixture.service.collections.contains(.login))
        _ = try await fixture.service.deleteCollection(.login, passcode: nil, caller: .daemon)
        #expect(await !fixture.service.collections.contains(.login), "the second question is answered yes")
    }

    @Test func aLockedCollectionNeedsItsPasscodeToBeDeletedFromPuffctl() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.store(["a": "1"])
        try await fixture.service.lock([.login])
        let withoutPasscode = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.deleteCollection(.login, passcode: nil, caller: .daemon)
        }
        #expect(withoutPasscode == .isLocked)
        let deleted = try await fixture.service.deleteCollection(
            .login, passcode: Fixture.passcode("correct horse"), caller: .daemon)
        #expect(deleted.id == "login" && deleted.itemCount == 1 && deleted.label == "Login")
        #expect(await fixture.service.readAlias("default") == nil)
    }

    @Test(arguments: [(6, 1), (8, 0)])
    func deletedCollectionsAreKeptForSevenDaysThenPurgedAtStart(days: UInt64, kept: Int) async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.store(["a": "1"])
        _ = try await fixture.service.deleteCollection(
            .login, passcode: Fixture.passcode("correct horse"), caller: .daemon)
        let later = SettableTime(fixture.time.now() + days * 86_400)
        let logger = InMemoryLogHandler.logger(store: fixture.logs)
        let restarted = try await SecretService(
            store: fixture.storage, mode: .persistent(kdf: .interactive), prompter: DismissingPrompter(logger: logger),
            promptTimeout: .seconds(30), now: later.now, logger: logger, events: { _ in })
        #expect(try await restarted.deletedCollections().count == kept)
        guard kept == 1 else { return }
        #expect(try await restarted.restoreCollection("login") == .login)
        #expect(await restarted.readAlias("default") == .login, "a vault with no default gets one again")
        try await restarted.unlock(.login, passcode: Fixture.passcode("correct horse"))
        #expect(await restarted.itemIDs(in: .login).count == 1)
    }

    static func isCompletion(_ event: ServiceEvent) -> Bool {
        if case .promptCompleted = event { true } else { false }
    }
}
