// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

@Suite struct ItemTests {
    @Test func replacingAnExactMatchKeepsPathAndCreatedAndEmitsOnlyItemChanged() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.store(["service": "example.com", "user": "alice"], secret: "one", label: "old")
        fixture.time.advance(by: 10)
        _ = fixture.recorder.drain()
        let second = try await fixture.store(["user": "alice", "service": "example.com"], secret: "two", label: "new")
        #expect(second == first)
        #expect(try await fixture.read(first) == "two")
        let info = try await fixture.service.itemInfo(first)
        #expect(info.label == "new")
        #expect(info.created == 1_700_000_000)
        #expect(info.modified == 1_700_000_010)
        #expect(
            fixture.recorder.drain() == [
                .itemChanged(
                    first,
                    [
                        .label("new"), .attributes(["service": "example.com", "user": "alice"]), .type(""),
                        .modified(1_700_000_010),
                    ])
            ])
    }

    @Test func aSupersetMatchIsNotClobbered() async throws {
        // secret-service.md §6.3 (b): gnome-keyring would overwrite this item and lose `extra`.
        let fixture = try await Fixture()
        let superset = try await fixture.store(["k": "1", "extra": "e"], secret: "keep")
        let subset = try await fixture.store(["k": "1"], secret: "new")
        #expect(subset != superset)
        #expect(try await fixture.service.itemInfo(superset).attributes == ["k": "1", "extra": "e"])
        #expect(try await fixture.read(superset) == "keep")
    }

    @Test func withoutReplaceIdenticalItemsAccumulateAndNumbersAreNeverReused() async throws {
        let fixture = try await Fixture()
        let a = try await fixture.store(["k": "v"], replace: false)
        let b = try await fixture.store(["k": "v"], replace: false)
        #expect([a.number, b.number] == [1, 2])
        try await fixture.service.deleteItem(b)
        let c = try await fixture.store(["k": "w"])
        #expect(c.number == 3)
        #expect(await fixture.service.itemIDs(in: .login) == [a, c])
    }

    @Test func searchMatchesEveryPairExactlyInAStableOrder() async throws {
        let fixture = try await Fixture()
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let w1 = try await fixture.store(["service": "git", "user": "a"], in: work)
        let l1 = try await fixture.store(["service": "git", "user": "b"])
        let l2 = try await fixture.store(["service": "git", "user": "a", "port": "22"])
        let s1 = try await fixture.store(["service": "git"], in: .session)
        _ = try await fixture.store(["service": "GIT", "user": "a"])
        let service = fixture.service
        #expect(try await service.searchItems(["service": "git", "user": "a"]).unlocked == [l2, w1])
        #expect(try await service.searchItems(["service": "gi"]).unlocked.isEmpty)
        #expect(try await service.searchItems(["service": "git"]).unlocked == [l1, l2, w1, s1])
        #expect(try await service.searchItems([:]).unlocked.count == 5)
        _ = await service.lock([Fixture.reference(work)], client: Fixture.alice)
        let split = try await service.searchItems(["user": "a"])
        #expect(split.unlocked.count == 2)
        #expect(split.locked == [w1])
        #expect(try await service.searchItems(["user": "a"], in: work) == [w1])
    }

    @Test func lockedAndUnknownItemsAreLeftOutOfSecrets() async throws {
        let fixture = try await Fixture()
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let open = try await fixture.store(["k": "1"])
        let closed = try await fixture.store(["k": "2"], in: work)
        _ = await fixture.service.lock([Fixture.reference(work)], client: Fixture.alice)
        let session = try await fixture.plainSession()
        let ghost = ItemID(collection: .login, number: 99)
        let result = try await fixture.service.secrets(
            for: [ghost, closed, open], session: session, caller: Caller(Fixture.alice))
        #expect(result.map(\.0) == [open])
        let error = await serviceError { () async throws(ServiceError) in
            try await fixture.service.secret(of: closed, session: session, caller: Caller(Fixture.alice))
        }
        #expect(error == .isLocked)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.service.setLabel("x", of: closed) }
                == .isLocked)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.setAttributes([:], of: closed)
            } == .isLocked)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.service.setType("t", of: closed) }
                == .isLocked)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.service.deleteItem(closed) }
                == .isLocked)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.setSecret(
                    Fixture.plain([], session: session), of: closed, client: Fixture.alice)
            } == .isLocked)
        let create = await serviceError { () async throws(ServiceError) in
            try await fixture.service.createItem(
                in: work, label: "", attributes: [:], type: "", secret: Fixture.plain([], session: session),
                replace: false,
                client: Fixture.alice)
        }
        #expect(create == .isLocked)
        // Locked, it shows what a restart shows (issue 24 item 23): its number, nothing else.
        let info = try await fixture.service.itemInfo(closed)
        #expect(info.attributes == [:] && info.label == "" && info.created == 0 && info.modified == 0)
    }

    @Test(arguments: [
        ("text/plain", "text/plain"), ("", "text/plain"), ("text/plain; charset=utf-8", "text/plain"),
        ("text/plain;charset=utf8", "text/plain"), ("application/octet-stream", "application/octet-stream"),
        ("text/html", "text/html"),
    ])
    func contentTypesGoOutAsLibsecretExpects(sent: String, returned: String) async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        let item = try await fixture.service.createItem(
            in: .login, label: "", attributes: [:], type: "",
            secret: Fixture.plain([1], session: session, contentType: sent),
            replace: false, client: Fixture.alice)
        #expect(
            try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice)).contentType
                == returned)
        #expect(
            try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice)).contentType
                == returned,
            "read twice, the stored type is unchanged")
    }

    @Test func typeComesFromXdgSchemaWithoutInjectingAttributes() async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        let typed = try await fixture.service.createItem(
            in: .login, label: "", attributes: ["k": "v"], type: "org.example.Custom",
            secret: Fixture.plain([], session: session), replace: false, client: Fixture.alice)
        #expect(try await fixture.service.itemInfo(typed).type == "org.example.Custom")
        #expect(try await fixture.service.itemInfo(typed).attributes == ["k": "v"])
        try await fixture.service.setAttributes(["xdg:schema": "org.gnome.keyring.Note"], of: typed)
        #expect(try await fixture.service.itemInfo(typed).type == "org.gnome.keyring.Note")
        let plain = try await fixture.store(["a": "b"])
        #expect(try await fixture.service.itemInfo(plain).type == "")
        try await fixture.service.setType("org.example.T", of: plain)
        #expect(try await fixture.service.itemInfo(plain).type == "org.example.T")
    }

    @Test func aFailingCommitLeavesEverythingUnchanged() async throws {
        let fixture = try await Fixture(script: [.reply(.confirmed)])
        let item = try await fixture.store(["k": "v"], secret: "old", label: "old")
        let before = try await fixture.service.collectionInfo(.login)
        _ = fixture.recorder.drain()
        await fixture.storage.failAllWrites(with: .writeFailed("disk full"))
        let session = try await fixture.plainSession()
        var errors: [ServiceError?] = []
        errors.append(await serviceError { () async throws(ServiceError) in try await fixture.store(["k": "w"]) })
        errors.append(
            await serviceError { () async throws(ServiceError) in try await fixture.store(["k": "v"], secret: "new") })
        errors.append(
            await serviceError { () async throws(ServiceError) in try await fixture.service.setLabel("new", of: item) })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.setSecret(
                    Fixture.plain([9], session: session), of: item, client: Fixture.alice)
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in try await fixture.service.deleteItem(item) })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                _ = try await fixture.service.deleteCollection(.login, passcode: nil, caller: .daemon)
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.createCollectionAtOnce(label: "W", alias: "w", client: Fixture.alice)
            })
        errors.append(
            await serviceError { () async throws(ServiceError) in try await fixture.service.setAlias("default", to: nil)
            })
        #expect(errors == Array(repeating: .failed("the change could not be saved"), count: 8))
        #expect(try await fixture.service.collectionInfo(.login) == before)
        #expect(try await fixture.service.itemInfo(item).label == "old")
        #expect(try await fixture.read(item) == "old")
        #expect(await fixture.service.collections == [.login, .session])
        #expect(await fixture.service.readAlias("default") == .login)
        #expect(fixture.recorder.events.isEmpty)
        #expect(fixture.logs.lines.contains { $0.contains("Vault write failed") })
    }

    @Test func itemEditsStampModified() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["k": "v"])
        fixture.time.advance(by: 60)
        try await fixture.service.setLabel("renamed", of: item)
        let info = try await fixture.service.itemInfo(item)
        #expect(info.label == "renamed")
        #expect(info.modified == info.created + 60)
    }
}
