// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A hidden collection is absent from collections, aliases, searches and status until its passcode
/// opens it, and absent again after `Lock` (issue 13 item 5).
@Suite struct HiddenCollectionTests {
    static let query: Attributes = ["app": "stash"]

    /// A persistent vault with a hidden `Stash` holding one item, locked.
    static func lockedStash() async throws -> (Fixture, CollectionID, ItemID) {
        let fixture = try await Fixture.persistent()
        let stash = try await fixture.makeCollection("Stash", passcode: "stash pass", isHidden: true)
        let item = try await fixture.store(Self.query, secret: "hidden value", label: "kept", in: stash)
        try await fixture.service.lock([stash])
        return (fixture, stash, item)
    }

    /// Checks that nothing of `stash` shows anywhere a client or `puffctl` can look.
    static func expectAbsent(
        _ fixture: Fixture, _ stash: CollectionID, _ item: ItemID, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let service = fixture.service
        #expect(await service.collections == [.login, .session], sourceLocation: sourceLocation)
        #expect(await service.vaultStatus.collections.map(\.id) == ["login"], sourceLocation: sourceLocation)
        for query in [Self.query, [:]] {
            let found = try await service.searchItems(query)
            #expect(!(found.unlocked + found.locked).contains(item), sourceLocation: sourceLocation)
        }
        #expect(await service.itemIDs(in: stash).isEmpty, sourceLocation: sourceLocation)
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.collectionInfo(stash) }
                == .noSuchObject, sourceLocation: sourceLocation)
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.itemInfo(item) } == .noSuchObject,
            sourceLocation: sourceLocation)
    }

    @Test func aHiddenCollectionIsListedOnlyWhileItsPasscodeHasItOpen() async throws {
        let (fixture, stash, item) = try await Self.lockedStash()
        #expect(fixture.recorder.drain().last == .collectionDeleted(stash), "clients see it go")
        try await Self.expectAbsent(fixture, stash, item)

        #expect(try await fixture.unlock(nil, "stash pass") == stash)
        #expect(fixture.recorder.drain() == [.collectionCreated(stash)])
        #expect(await fixture.service.collections == [.login, stash, .session])
        let status = try #require(await fixture.service.vaultStatus.collections.first { $0.id == "Stash" })
        #expect(status.isHidden && status.isPrivate && !status.isLocked && status.itemCount == 1)
        #expect(try await fixture.service.searchItems(Self.query).unlocked == [item])
        #expect(try await fixture.holds(item, "hidden value"))

        try await fixture.service.lock([])
        try await Self.expectAbsent(fixture, stash, item)
    }

    @Test func unlockingByNameNeverFindsAHiddenCollection() async throws {
        let (fixture, stash, item) = try await Self.lockedStash()
        let byName = await serviceError { () async throws(ServiceError) in
            try await fixture.unlock(stash, "stash pass")
        }
        #expect(byName == .noSuchObject, "as for a name that does not exist")
        try await Self.expectAbsent(fixture, stash, item)
    }

    @Test func anAliasOfAHiddenCollectionResolvesOnlyWhileItIsOpen() async throws {
        let (first, stash, item) = try await Self.lockedStash()
        try await first.unlock(nil, "stash pass")
        try await first.service.setAlias("stash", to: stash)
        try await first.service.setAlias("default", to: stash)
        #expect(await first.service.readAlias("stash") == stash)
        #expect(await first.service.readAlias("default") == stash)
        #expect(
            try await first.storedCatalog().aliases == ["default": "login", "login": "login"], "never in the catalog")

        try await first.service.lock([stash])
        #expect(await first.service.readAlias("stash") == nil)
        #expect(await first.service.readAlias("default") == .login, "default reads as it did before")
        // A visible collection that takes the free name does not inherit the hidden one's alias.
        let visible = try await first.makeCollection("Stash", passcode: "other pass")
        #expect(visible == stash)
        #expect(await first.service.readAlias("stash") == nil)

        let fixture = try await first.restarted()
        #expect(await fixture.service.readAlias("stash") == nil)
        #expect(await fixture.service.readAlias("default") == .login)
        let opened = try await fixture.unlock(nil, "stash pass")
        #expect(opened == CollectionID("Stash_1"), "its name is taken, so it shows under a free one")
        #expect(await fixture.service.readAlias("stash") == opened, "its aliases are sealed in its records")
        #expect(await fixture.service.readAlias("default") == opened)
        #expect(try await fixture.holds(ItemID(collection: opened, number: item.number), "hidden value"))
        try await fixture.service.lock([opened])
        #expect(await fixture.service.readAlias("stash") == nil)
        #expect(await fixture.service.readAlias("default") == .login)
    }

    @Test func eachPasscodeOpensOnlyItsOwnHiddenCollectionWithOneKeyDerivation() async throws {
        let first = try await Fixture.persistent()
        var items: [String: ItemID] = [:]
        for name in ["Red", "Green", "Blue"] {
            let id = try await first.makeCollection(name, passcode: "\(name) pass", isHidden: true)
            items[name] = try await first.store(["colour": name], secret: "\(name) value", in: id)
        }
        try await first.service.lock([])
        let fixture = try await first.restarted()
        #expect(await fixture.service.collections == [.login, .session])

        let derivations = await fixture.service.keyDerivations
        #expect(try await fixture.unlock(nil, "Green pass") == CollectionID("Green"))
        #expect(await fixture.service.keyDerivations == derivations + 1, "one Argon2id run tries all three")
        #expect(await fixture.service.collections == [.login, CollectionID("Green"), .session])
        #expect(try await fixture.holds(try #require(items["Green"]), "Green value"))

        #expect(try await fixture.unlock(nil, "Red pass") == CollectionID("Red"))
        #expect(await fixture.service.collections == [.login, CollectionID("Green"), CollectionID("Red"), .session])
        #expect(try await fixture.service.searchItems(["colour": "Blue"]) == ([], []))
    }

    @Test func thePasscodeOfAnOpenHiddenCollectionIsNotTakenForAWrongOne() async throws {
        let (fixture, stash, _) = try await Self.lockedStash()
        #expect(try await fixture.unlock(nil, "stash pass") == stash)
        let again = await fixture.immediateAnswer { () async throws(ServiceError) in
            #expect(try await fixture.unlock(nil, "stash pass") == stash)
        }
        #expect(again == nil, "already open: no error and no delay")
    }

    @Test func aHiddenCollectionStaysHiddenAcrossARestartAndInTheFiles() async throws {
        let (first, stash, item) = try await Self.lockedStash()
        let fixture = try await first.restarted()
        try await Self.expectAbsent(fixture, stash, item)
        let catalog = try await fixture.storedCatalog()
        #expect(catalog.collections.map(\.id) == ["login"])
        let hidden = try await fixture.hiddenSpaces()
        #expect(hidden.count == 1)
        let header = try await fixture.header(of: try #require(hidden.first))
        #expect(header.collectionID == nil && header.indexKey == nil)
        #expect(try await fixture.parsedRecords(of: try #require(hidden.first)).allSatisfy { $0.tags.isEmpty })

        #expect(try await fixture.unlock(nil, "stash pass") == stash)
        #expect(try await fixture.service.collectionInfo(stash).label == "Stash")
        #expect(try await fixture.holds(item, "hidden value"))
    }
}
