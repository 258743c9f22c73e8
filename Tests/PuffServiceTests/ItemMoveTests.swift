// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// `moveItem` (`puffctl mv`): the item arrives whole, protection included, before it leaves; the
/// access gate decides first.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct ItemMoveTests {
    @Test func aMovedItemKeepsLabelAttributesSecretCreatedAndProtection() async throws {
        let fixture = try await Fixture(script: [.reply(.confirmed), .reply(.confirmed)])
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let item = try await fixture.store(["service": "mv", "user": "alice"], secret: "moved secret", label: "Mail")
        try await fixture.service.setProtected(true, of: item)
        let created = try await fixture.service.itemInfo(item).created
        _ = fixture.recorder.drain()

        let moved = try await fixture.service.moveItem(item, to: work, caller: Caller(Fixture.alice))
        #expect(moved.collection == work)
        #expect(await fixture.service.itemIDs(in: .login).isEmpty)
        let info = try await fixture.service.itemInfo(moved)
        #expect(info.label == "Mail" && info.attributes == ["service": "mv", "user": "alice"])
        #expect(info.created == created)
        #expect(try await fixture.service.accessEntries([moved]).first?.settings.isProtected == true)
        // Protected: the move asked once, and reading the moved item asks again.
        #expect(await fixture.prompter.requests.count == 1)
        #expect(try await fixture.holds(moved, "moved secret"))
        #expect(await fixture.prompter.requests.count == 2)
        #expect(try await fixture.service.searchItems(["service": "mv"]).unlocked == [moved])
        let events = fixture.recorder.drain()
        #expect(events.contains(.itemCreated(moved)) && events.contains(.itemDeleted(item)))
    }

    @Test func aProtectedItemNobodyConfirmsStaysWhereItWas() async throws {
        let fixture = try await Fixture(script: [.reply(.dismissed)])
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let item = try await fixture.store(["service": "mv"], secret: "kept")
        try await fixture.service.setProtected(true, of: item)
        let error = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.moveItem(item, to: work, caller: Caller(Fixture.alice))
        }
        #expect(error == .readRefused(nil))
        #expect(await fixture.service.itemIDs(in: .login) == [item])
        #expect(await fixture.service.itemIDs(in: work).isEmpty)
    }

    @Test func movingIntoItsOwnOrALockedCollectionIsRefused() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work pass")
        let item = try await fixture.store(["service": "mv"])
        let same = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.moveItem(item, to: .login, caller: .daemon)
        }
        #expect(same == .invalidArgument("the item is already in login"))
        try await fixture.service.lock([work])
        let locked = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.moveItem(item, to: work, caller: .daemon)
        }
        #expect(locked == .isLocked)
        #expect(await fixture.service.itemIDs(in: .login) == [item])
    }

    @Test func aMoveInterruptedAfterTheCopyIsSavedLeavesTheItemInBothCollections() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work pass")
        let item = try await fixture.store(["service": "mv"], secret: "moved secret", label: "Mail")
        await fixture.storage.holdNextWrite()
        let move = Task {
            await serviceError { () async throws(ServiceError) in
                _ = try await fixture.service.moveItem(item, to: work, caller: .daemon)
            }
        }
        await fixture.storage.waitUntilHolding()  // the copy's write
        await fixture.storage.holdNextWrite()
        await fixture.storage.releaseHeldWrite()
        await fixture.storage.waitUntilHolding()  // the deletion's write: the copy is saved

        // puffd ending here: a new one over the same files finds the item twice, never not at all.
        let after = try await fixture.restarted()
        try await after.unlock(.login, "correct horse")
        try await after.unlock(work, "work pass")
        #expect(await after.service.itemIDs(in: .login) == [item])
        let copy = try #require(await after.service.itemIDs(in: work).first)
        #expect(try await after.holds(copy, "moved secret"))
        #expect(try await after.service.itemInfo(copy).label == "Mail")

        // The deletion failing instead: the running puffd keeps both and says so.
        await fixture.storage.failNextWrite()
        await fixture.storage.releaseHeldWrite()
        let error = try #require(await move.value)
        guard case .failed(let message) = error else {
            Issue.record("expected .failed, got \(error)")
            return
        }
        #expect(message.hasPrefix("the item was copied to \(work.rawValue)/"), "\(message)")
        #expect(await fixture.service.itemIDs(in: .login) == [item])
        #expect(await fixture.service.itemIDs(in: work).count == 1)
    }

    @Test func aMoveSurvivesARestart() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work pass")
        let item = try await fixture.store(["service": "mv"], secret: "moved secret")
        let moved = try await fixture.service.moveItem(item, to: work, caller: .daemon)
        let after = try await fixture.restarted()
        try await after.unlock(.login, "correct horse")
        try await after.unlock(work, "work pass")
        #expect(await after.service.itemIDs(in: .login).isEmpty)
        #expect(await after.service.itemIDs(in: work) == [moved])
        #expect(try await after.holds(moved, "moved secret"))
    }
}
