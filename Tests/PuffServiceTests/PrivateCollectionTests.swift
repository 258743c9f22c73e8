// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A private collection keeps no blind index and drops its items on `Lock` (architecture.md
/// Part A item 3): while locked nothing shows that it holds anything.
@Suite struct PrivateCollectionTests {
    static let query: Attributes = ["app": "diary"]

    /// A persistent vault with a private `Diary` holding one item and `login` holding one with
    /// the same attributes, for contrast.
    static func diary() async throws -> (Fixture, CollectionID, ItemID, ItemID) {
        let fixture = try await Fixture.persistent()
        let diary = try await fixture.makeCollection("Diary", passcode: "diary pass", isPrivate: true)
        let secretItem = try await fixture.store(Self.query, secret: "dear diary", label: "entry", in: diary)
        let loginItem = try await fixture.store(Self.query, secret: "login one")
        return (fixture, diary, secretItem, loginItem)
    }

    /// Checks that none of `diary`'s items shows anywhere a client or `puffctl` can look.
    static func expectNothingShows(
        _ fixture: Fixture, _ diary: CollectionID, _ item: ItemID, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let service = fixture.service
        #expect(await service.itemIDs(in: diary).isEmpty, "Items", sourceLocation: sourceLocation)
        for query in [Self.query, [:]] {
            let found = try await service.searchItems(query)
            #expect(!found.unlocked.contains(item), sourceLocation: sourceLocation)
            #expect(
                !found.locked.contains { $0.collection == diary }, "not even as locked", sourceLocation: sourceLocation)
            #expect(try await service.searchItems(query, in: diary).isEmpty, sourceLocation: sourceLocation)
        }
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.itemInfo(item) } == .noSuchObject,
            sourceLocation: sourceLocation)
        let info = try await service.collectionInfo(diary)
        #expect(info.isLocked && info.itemCount == 0, sourceLocation: sourceLocation)
        let status = try #require(await service.vaultStatus.collections.first { $0.id == diary.rawValue })
        #expect(status.isLocked && status.isPrivate && status.itemCount == 0, sourceLocation: sourceLocation)
    }

    @Test func aLockedPrivateCollectionShowsItsItemsNowhereUntilItIsUnlockedAgain() async throws {
        let (fixture, diary, item, loginItem) = try await Self.diary()
        #expect(try await fixture.service.searchItems(Self.query).unlocked == [loginItem, item])

        try await fixture.service.lock([diary, .login])
        try await Self.expectNothingShows(fixture, diary, item)
        // A locked collection that is not private still lists its items as locked.
        #expect(try await fixture.service.searchItems(Self.query).locked == [loginItem])

        try await fixture.unlock(diary, "diary pass")
        #expect(await fixture.service.itemIDs(in: diary) == [item])
        #expect(try await fixture.service.searchItems(Self.query).unlocked == [item])
        #expect(try await fixture.service.itemInfo(item).label == "entry")
        #expect(try await fixture.holds(item, "dear diary"))

        try await fixture.service.lock([diary])
        try await Self.expectNothingShows(fixture, diary, item)
    }

    @Test func afterARestartOnlyThePrivatePasscodeRevealsTheItems() async throws {
        let (first, diary, item, _) = try await Self.diary()
        let fixture = try await first.restarted()
        try await Self.expectNothingShows(fixture, diary, item)
        let wrong = await fixture.immediateAnswer { () async throws(ServiceError) in
            try await fixture.unlock(diary, "correct horse")
        }
        #expect(
            wrong == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))),
            "the login passcode does not open it")
        try await Self.expectNothingShows(fixture, diary, item)

        try await fixture.unlock(diary, "diary pass")
        #expect(await fixture.service.itemIDs(in: diary) == [item])
        #expect(try await fixture.service.itemInfo(item).attributes == Self.query)
        #expect(try await fixture.holds(item, "dear diary"))
        #expect(try await fixture.service.collectionInfo(.login).isLocked, "one passcode opens one collection")
    }

    @Test func aPrivateCollectionStoresNoBlindIndexTagsAndNoIndexKey() async throws {
        let (fixture, diary, item, _) = try await Self.diary()
        try await fixture.store(["app": "diary", "day": "2"], secret: "more", in: diary)
        try await fixture.service.setAttributes(["app": "diary", "mood": "ok"], of: item)
        let space = try await fixture.space(of: diary)
        let header = try await fixture.header(of: space)
        #expect(header.flags == [.private])
        #expect(header.indexKey == nil)
        let records = try await fixture.parsedRecords(of: space)
        #expect(records.filter { $0.kind == .item }.count == 3)
        #expect(records.allSatisfy { $0.tags.isEmpty })

        // The same items in a collection that is not private carry their tags.
        let login = try await fixture.parsedRecords(of: try await fixture.space(of: .login))
        #expect(login.contains { $0.kind == .item && !$0.tags.isEmpty })
    }
}
