// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffTesting
import Testing

@Suite struct EventTests {
    static let t0: UInt64 = 1_700_000_000

    @Test func creatingAndDeletingItemsEmitsTheSignalsOfSection7InOrder() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.store(["k": "1"])
        fixture.time.advance(by: 5)
        let second = try await fixture.store(["k": "2"])
        fixture.time.advance(by: 5)
        try await fixture.service.deleteItem(first)
        #expect(
            fixture.recorder.events == [
                .itemCreated(first), .itemCreated(second), .itemDeleted(first),
            ])
        // The lists themselves are read when the coalesced signal goes out, not carried by events.
        #expect(await fixture.service.itemIDs(in: .login) == [second])
        #expect(try await fixture.service.collectionInfo(.login).modified == Self.t0 + 10)
    }

    @Test func itemPropertyChangesCarryTheNewValues() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["k": "1"])
        _ = fixture.recorder.drain()
        fixture.time.advance(by: 1)
        try await fixture.service.setLabel("L", of: item)
        try await fixture.service.setAttributes(["k": "2"], of: item)
        try await fixture.service.setAttributes(["xdg:schema": "org.example.S"], of: item)
        try await fixture.service.setType("T", of: item)
        let session = try await fixture.plainSession()
        try await fixture.service.setSecret(Fixture.plain([1, 2], session: session), of: item, client: Fixture.alice)
        let t = Self.t0 + 1
        #expect(
            fixture.recorder.events == [
                .itemChanged(item, [.label("L"), .modified(t)]),
                .itemChanged(item, [.attributes(["k": "2"]), .modified(t)]),
                .itemChanged(
                    item, [.attributes(["xdg:schema": "org.example.S"]), .type("org.example.S"), .modified(t)]),
                .itemChanged(item, [.type("org.example.S"), .modified(t)]),
                .itemChanged(item, [.modified(t)]),
            ])
    }

    @Test func collectionLifecycleAndLockingEmitTheRightEvents() async throws {
        // The person confirms the deletion of the collection, which holds an item.
        let fixture = try await Fixture(script: [.reply(.confirmed)])
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let item = try await fixture.store(["k": "1"], in: work)
        _ = fixture.recorder.drain()
        try await fixture.service.setLabel("Job", of: work)
        _ = await fixture.service.lock([Fixture.reference(work)], client: Fixture.alice)
        _ = try await fixture.service.deleteCollection(work, passcode: nil, caller: .daemon)
        #expect(
            fixture.recorder.events == [
                .collectionChanged(work, [.label("Job"), .modified(Self.t0)]),
                .lockChanged(work, locked: true, view: .lockedOnly),
                .collectionDeleted(work),
            ])
        let view = try #require(fixture.recorder.events.lazy.compactMap(\.lockView).first)
        #expect(view.itemNumbers == [item.number], "the lock change carries the collection's items")
        #expect(view.itemProperties(of: item.number, locked: true) == [.locked(true)])
    }

    @Test func creatingACollectionAnnouncesItAndUpdatesTheList() async throws {
        let fixture = try await Fixture()
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        #expect(fixture.recorder.events == [.collectionCreated(work)])
        #expect(await fixture.service.collections == [.login, work, .session])
    }
}
