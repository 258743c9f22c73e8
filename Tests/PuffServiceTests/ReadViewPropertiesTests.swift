// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffService
import PuffStore
import PuffTesting
import Testing

/// An item's properties read from the ``ReadView`` (on the bus thread in puffd): what the actor
/// gives, for open and unlocked collections only, without changing what the actor keeps opened.
struct ReadViewPropertiesTests {
    @Test func anItemsPropertiesAreWhatTheActorGivesAndAnUnopenedRecordIsNotKeptOpened() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1", "xdg:schema": "org.example.Mail"], label: "Shown")
        let view = fixture.service.readView
        let stored = try await fixture.service.itemInfo(id)
        #expect(view.itemInfo(id) == stored)
        _ = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        #expect(view.itemInfo(id) == nil, "a locked item's properties are the actor's to give")
        _ = try await fixture.service.unlock(.login, passcode: Fixture.passcode("correct horse"))
        #expect(await fixture.service.itemForms(in: .login).opened == 0)
        let fast = try #require(view.itemInfo(id))
        #expect(await fixture.service.itemForms(in: .login).opened == 0, "read from the record, not kept")
        #expect(fast.label == "Shown")
        #expect(fast.type == "org.example.Mail")
        #expect(fast.attributes == ["a": "1", "xdg:schema": "org.example.Mail"])
        #expect(!fast.isLocked)
        let actor = try await fixture.service.itemInfo(id)
        #expect(fast == actor)
        #expect(view.itemInfo(ItemID(collection: .login, number: 99)) == nil)
    }
}

extension ReadViewPropertiesTests {
    @Test func anItemJustWrittenToAFileJournalIsReadWithItsLabel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "puff-viewprops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = try await Fixture.persistent(storage: FileRecordStore(folder: folder.path, sync: { _, _ in 0 }))
        let id = try await fixture.store(["a": "1"], label: "Written")
        let actor = try await fixture.service.itemInfo(id)
        #expect(fixture.service.readView.itemInfo(id) == actor)
        #expect(actor.label == "Written")
    }
}
