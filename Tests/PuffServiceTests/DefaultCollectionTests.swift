// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

@Suite struct DefaultCollectionTests {
    @Test func aFreshVaultGetsLoginAndSessionCollectionsWithTheirAliases() async throws {
        let fixture = try await Fixture()
        let service = fixture.service
        #expect(await service.collections == [.login, .session])
        #expect(await service.readAlias("default") == .login)
        #expect(await service.readAlias("login") == .login)
        #expect(await service.readAlias("session") == .session)
        #expect(await service.readAlias("") == nil)
        #expect(await service.readAlias("nope") == nil)
        let login = try await service.collectionInfo(.login)
        #expect(login.label == "Login")
        #expect(login.isLocked == false)
        #expect(login.created == 1_700_000_000)
        let session = try await service.collectionInfo(.session)
        #expect(session == CollectionInfo(label: "", isLocked: false, created: 0, modified: 0, itemCount: 0))
    }

    @Test func theLoginCollectionIsPersistedButTheSessionCollectionIsNot() async throws {
        let fixture = try await Fixture()
        try await fixture.store(["k": "v"], in: .session)
        let spaces = try await fixture.storage.spaces()
        #expect(spaces.count == 1, "only login has files")
        let catalog = try Catalog(decoding: try #require(try await fixture.storage.catalog()))
        #expect(catalog.collections.map(\.id) == ["login"])
        #expect(catalog.aliases == ["default": "login", "login": "login"])
        #expect(await fixture.storage.records(of: spaces[0]).count == 1, "its collection record, no item")
    }

    @Test func anExistingLoginCollectionIsLoadedNotRecreated() async throws {
        let first = try await Fixture.persistent()
        try await first.service.setLabel("Mine", of: .login)
        for _ in 0..<3 { try await first.store(["k": "v"], replace: false) }
        try await first.service.deleteItem(ItemID(collection: .login, number: 3))
        let appends = await first.storage.appendCount
        let fixture = try await first.restarted()
        #expect(await fixture.storage.appendCount == appends, "opening writes nothing")
        #expect(try await fixture.service.collectionInfo(.login).isLocked)
        try await fixture.service.unlock(.login, passcode: Fixture.passcode("correct horse"))
        #expect(try await fixture.service.collectionInfo(.login).label == "Mine")
        let item = try await fixture.store(["k": "v"], replace: false)
        #expect(item.number == 4, "a deleted number is never handed out again")
    }

    @Test(arguments: [
        ("My Coll", "My_Coll"), ("a/b:c", "a_b_c"), ("", "unnamed"), ("ünï", "ünï"), ("Login", "Login"),
        ("Default keyring", "Default_keyring"), ("x\\y<z>|\t\n\r\u{0B}", "x_y_z______"), ("login", "login_1"),
        ("session", "session_1"),
    ])
    func collectionIdentifiersAreDerivedFromLabels(label: String, identifier: String) async throws {
        let fixture = try await Fixture()
        let id = try await fixture.service.createCollectionAtOnce(label: label, alias: nil, client: Fixture.alice)
        #expect(id.rawValue == identifier)
        #expect(try await fixture.service.collectionInfo(id).label == label)
    }

    @Test func duplicateLabelsGetNumberedSuffixes() async throws {
        let service = try await Fixture().service
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(
                try await service.createCollectionAtOnce(label: "My Coll", alias: "", client: Fixture.alice).rawValue)
        }
        #expect(ids == ["My_Coll", "My_Coll_1", "My_Coll_2"])
        #expect(await service.collections.map(\.rawValue) == ["login", "My_Coll", "My_Coll_1", "My_Coll_2", "session"])
    }

    @Test func creatingWithAnAliasThatResolvesReturnsThatCollectionRelabelled() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.service.createCollectionAtOnce(
            label: "Default keyring", alias: "default", client: Fixture.alice)
        #expect(id == .login)
        #expect(try await fixture.service.collectionInfo(.login).label == "Default keyring")
        #expect(await fixture.service.collections == [.login, .session])
    }

    @Test func creatingWithANewAliasSetsIt() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.service.createCollectionAtOnce(label: "Work", alias: "work", client: Fixture.alice)
        #expect(await fixture.service.readAlias("work") == id)
        let catalog = try Catalog(decoding: try #require(try await fixture.storage.catalog()))
        #expect(catalog.aliases["work"] == "Work")
    }

    @Test func deletingACollectionMakesItsAliasesReadAsNil() async throws {
        let service = try await Fixture().service
        _ = try await service.deleteCollection(.login, passcode: nil, caller: .daemon)
        #expect(await service.readAlias("default") == nil)
        #expect(await service.collections == [.session])
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.collectionInfo(.login) }
                == .noSuchObject)
        #expect(
            await serviceError { () async throws(ServiceError) in
                _ = try await service.deleteCollection(.session, passcode: nil, caller: .daemon)
            } != nil)
        let again = try await service.createCollectionAtOnce(label: "login", alias: nil, client: Fixture.alice)
        #expect(again == .login)
        #expect(await service.readAlias("default") == .login, "the first collection made while none is the default")
    }

    @Test func setAliasValidatesNameAndCollection() async throws {
        let service = try await Fixture().service
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.setAlias("a/b", to: .login) }
                == .invalidArgument("alias must match [A-Za-z0-9_]+"))
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.setAlias("x", to: CollectionID("nope"))
            }
                == .noSuchObject)
        try await service.setAlias("default", to: .session)
        #expect(await service.readAlias("default") == .session)
        try await service.setAlias("default", to: nil)
        #expect(await service.readAlias("default") == nil)
    }

    @Test func relabellingALockedCollectionFails() async throws {
        let service = try await Fixture().service
        _ = await service.lock([Fixture.reference(.login)], client: Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await service.setLabel("x", of: CollectionID.login)
            } == .isLocked)
    }
}
