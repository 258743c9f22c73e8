// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

@Suite struct LockingTests {
    static let t0: UInt64 = 1_700_000_000

    static let loginSpelling = "/org/freedesktop/secrets/collection/login"

    /// A fixture whose `Work` collection is locked and holds one item.
    static func lockedWork(
        script: [ScriptedPrompter.Step] = []
    ) async throws -> (Fixture, CollectionID, ItemID) {
        let fixture = try await Fixture(script: script)
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        let item = try await fixture.store(["k": "v"], in: work)
        _ = await fixture.service.lock([Fixture.reference(work)], client: Fixture.alice)
        _ = fixture.recorder.drain()
        return (fixture, work, item)
    }

    @Test func unlockListsUnlockedOnesInOrderAndDropsUnknownOnes() async throws {
        let (fixture, work, item) = try await Self.lockedWork()
        let loginItem = try await fixture.store(["a": "b"])
        let result = try await fixture.service.unlock(
            [
                .item(loginItem), Fixture.reference(.login), .collection(CollectionID("gone")),
                .item(ItemID(collection: .login, number: 77)), Fixture.reference(work), .item(item),
            ], client: Fixture.alice)
        #expect(result.unlocked == [.item(loginItem), .collection(.login)])
        #expect(result.prompt != nil)
        #expect(try await fixture.service.unlock([], client: Fixture.alice).unlocked.isEmpty)
        #expect(try await fixture.service.unlock([], client: Fixture.alice).prompt == nil)
    }

    @Test func lockReturnsEveryExistingSpellingAndNeverPrompts() async throws {
        let fixture = try await Fixture()
        let item = try await fixture.store(["k": "v"])
        let gone = ObjectReference.item(ItemID(collection: .login, number: 77))
        let result = await fixture.service.lock(
            [Fixture.reference(.login), .item(item), gone, Fixture.reference(.session)], client: Fixture.alice)
        #expect(result.locked == [.collection(.login), .item(item), .collection(.session)])
        #expect(result.prompt == nil)
        #expect(try await fixture.service.collectionInfo(.login).isLocked)
        #expect(try await fixture.service.itemInfo(item).isLocked)
        #expect(try await fixture.service.collectionInfo(.session).isLocked == false, "session stays unlocked as in GK")
        let again = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        #expect(again.locked == [.collection(.login)], "already-locked objects are listed too")
    }

    @Test(arguments: [PromptReply.confirmed, .passcode(SecureBytes(unwipedCopyOf: Array("pw".utf8)))])
    func anApprovedUnlockPromptUnlocksAndReportsTheSpellings(reply: PromptReply) async throws {
        let (fixture, work, item) = try await Self.lockedWork(script: [.reply(reply)])
        let result = try await fixture.service.unlock(
            [.item(item), Fixture.reference(work)], client: Fixture.alice)
        let prompt = try #require(result.prompt)
        try await fixture.service.startPrompt(prompt, windowID: "x11:42", client: Fixture.alice)
        let done = await fixture.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } }
        #expect(
            done
                == .promptCompleted(
                    prompt, owner: Fixture.alice, dismissed: false, result: .objects([.item(item), .collection(work)])))
        #expect(try await fixture.service.collectionInfo(work).isLocked == false)
        let requests = await fixture.prompter.requests
        #expect(
            requests == [
                PromptRequest(
                    purpose: .unlock(collection: work, label: "Work"), caller: Fixture.alice, windowID: "x11:42")
            ])
        #expect(
            fixture.recorder.events == [
                .lockChanged(work, locked: false, view: .readable([.label("Work"), .modified(Self.t0)])),
                .promptCompleted(
                    prompt, owner: Fixture.alice, dismissed: false, result: .objects([.item(item), .collection(work)])),
            ])
        // Read again at the unlock, the item's properties come with it (docs/collections.md).
        let view = try #require(fixture.recorder.events.lazy.compactMap(\.lockView).first)
        #expect(
            view.itemProperties(of: item.number, locked: false) == [
                .locked(false), .label("label"), .attributes(["k": "v"]), .type(""), .created(Self.t0),
                .modified(Self.t0),
            ])
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
            } == .noSuchObject, "a finished prompt is forgotten")
    }

    @Test(arguments: [ScriptedPrompter.Step.reply(.dismissed), .fail])
    func aDeclinedOrFailedPromptIsDismissedWithATypedEmptyResult(step: ScriptedPrompter.Step) async throws {
        let (fixture, work, _) = try await Self.lockedWork(script: [step])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        let done = await fixture.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } }
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .objects([])))
        #expect(try await fixture.service.collectionInfo(work).isLocked)
        #expect(fixture.recorder.completions.count == 1)
    }

    @Test func aPromptThatTimesOutIsDismissedAndItsPrompterCancelled() async throws {
        let (fixture, work, _) = try await Self.lockedWork(script: [.hold])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await fixture.clock.waitForSleepers(1))
        fixture.clock.advance(by: Fixture.timeout - .seconds(1))
        // advance(by:) wakes due sleepers synchronously: the timer still sleeping means it has not fired.
        #expect(fixture.clock.sleeperCount == 1, "the timeout has not fired a second early")
        fixture.clock.advance(by: .seconds(1))
        let done = await fixture.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } }
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .objects([])))
        #expect(await fixture.prompter.waitForCancellations(1))
        #expect(try await fixture.service.collectionInfo(work).isLocked)
        #expect(fixture.recorder.completions.count == 1)
    }

    @Test func dismissCompletesAtOnceAndCancelsTheRunningPrompter() async throws {
        let (fixture, work, _) = try await Self.lockedWork(script: [.hold])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.dismissPrompt(prompt, client: Fixture.bob)
            }
                == .accessDenied)
        try await fixture.service.dismissPrompt(prompt, client: Fixture.alice)
        #expect(
            fixture.recorder.events == [
                .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .objects([]))
            ])
        #expect(await fixture.prompter.waitForCancellations(1))
        await fixture.prompter.release(with: .confirmed)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.dismissPrompt(prompt, client: Fixture.alice)
            }
                == .noSuchObject)
        #expect(fixture.recorder.completions.count == 1)
    }

    @Test func aPromptCanBeDismissedBeforeItStarts() async throws {
        let (fixture, work, _) = try await Self.lockedWork()
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        try await fixture.service.dismissPrompt(prompt, client: Fixture.alice)
        #expect(
            fixture.recorder.completions == [
                .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .objects([]))
            ])
        #expect(await fixture.prompter.requests.isEmpty)
    }

    @Test func onlyTheOwnerMayStartAPromptAndOnlyOnce() async throws {
        let (fixture, work, _) = try await Self.lockedWork(script: [.hold])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.bob)
            }
                == .accessDenied)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
            }
                == .alreadyExists)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.startPrompt(PromptID("p999"), windowID: "", client: Fixture.alice)
            } == .noSuchObject)
        await fixture.prompter.release(with: .confirmed)
        #expect(await fixture.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } } != nil)
    }

    @Test func aVanishedOwnerCancelsItsHeldPromptWithoutCompleted() async throws {
        let (fixture, work, _) = try await Self.lockedWork(script: [.hold])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        let idle = try #require(
            try await fixture.service.unlock([Fixture.reference(work)], client: Fixture.alice).prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        #expect(await fixture.prompter.waitUntilHolding(1))
        await fixture.service.clientVanished(Fixture.alice)
        #expect(await fixture.prompter.waitForCancellations(1))
        // The timer was cancelled with the prompt, so no sleeper is left that could fire.
        #expect(await poll(limit: HangGuard.step) { fixture.clock.sleeperCount == 0 })
        fixture.clock.advance(by: Fixture.timeout * 2)
        #expect(fixture.recorder.events.isEmpty)
        for id in [prompt, idle] {
            #expect(
                await serviceError { () async throws(ServiceError) in
                    try await fixture.service.dismissPrompt(id, client: Fixture.alice)
                }
                    == .noSuchObject)
        }
        #expect(try await fixture.service.collectionInfo(work).isLocked)
    }
}

extension LockingTests {
    /// A lock that arrives while a creation waits on its commit waits its turn, so the item is
    /// never stored into a collection that was locked in between.
    @Test func aLockWaitsForACreationWhoseCommitIsPending() async throws {
        let fixture = try await Fixture()
        let session = try await fixture.plainSession()
        _ = fixture.recorder.drain()
        await fixture.storage.holdNextWrite()
        let creation = Task {
            try await fixture.service.createItem(
                in: .login, label: "slow", attributes: ["slow": "1"], type: "",
                secret: Fixture.plain([1], session: session), replace: false, client: Fixture.alice)
        }
        await fixture.storage.waitUntilHolding()
        let locking = Task { await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice) }
        // Release only once the lock is queued behind the creation's write turn.
        #expect(await poll(limit: HangGuard.step) { await fixture.service.writersWaiting == 1 })
        #expect(try await fixture.service.collectionInfo(.login).isLocked == false)
        await fixture.storage.releaseHeldWrite()
        let item = try await creation.value
        _ = await locking.value

        let events = fixture.recorder.drain()
        let created = try #require(events.firstIndex { if case .itemCreated(item) = $0 { true } else { false } })
        let locked = try #require(events.firstIndex { $0 == .lockChanged(.login, locked: true, view: .lockedOnly) })
        #expect(created < locked)
        #expect(try await fixture.service.collectionInfo(.login).isLocked)
    }
}
