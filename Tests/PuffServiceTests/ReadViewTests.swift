// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// Reads answered from the service's ``ReadView`` (on the bus thread in puffd): they give exactly
/// what the actor would, are audited, and decline whatever needs the actor (design
/// core-reshaped §7).
struct ReadViewTests {
    static let tool = Caller(Fixture.alice, executable: "/usr/bin/secret-tool", pid: 4242)

    /// What a read through the view gave, as text; nil when the view declined.
    static func text(_ secrets: [TransportSecret]?) -> [String]? {
        secrets?.map { String(decoding: $0.value.unprotectedArray(), as: UTF8.self) }
    }

    @Test func anUnlockedItemIsReadAsTheActorReadsIt() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store(["a": "1"], secret: "first", label: "One")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        #expect(Self.text(view.secrets(of: [id], session: session, caller: Self.tool)) == ["first"])
        try await fixture.service.setSecret(
            Fixture.plain(Array("second".utf8), session: session, contentType: "text/plain"), of: id,
            client: Fixture.alice)
        let read = view.secrets(of: [id], session: session, caller: Self.tool)
        #expect(Self.text(read) == ["second"], "a changed secret is read as changed")
        #expect(read?.first?.session == session)
        #expect(read?.first?.contentType == "text/plain")
        try await fixture.service.deleteItem(id, caller: Self.tool)
        #expect(view.secrets(of: [id], session: session, caller: Self.tool) == nil, "a deleted item is not read")
    }

    @Test func aReadOfAnotherClientsSessionIsLeftToTheActor() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store(["a": "1"])
        let session = try await fixture.plainSession(Fixture.alice)
        let view = fixture.service.readView
        #expect(view.secrets(of: [id], session: session, caller: Caller(Fixture.bob)) == nil)
        #expect(view.secrets(of: [id], session: SessionID("nonsense"), caller: Self.tool) == nil)
        #expect(view.secrets(of: [id], session: session, caller: Self.tool) != nil)
    }

    @Test func aProtectedItemOrOneWithARuleIsLeftToTheActorWhichAsks() async throws {
        let fixture = try await Fixture(script: [.reply(.confirmed)])
        let protected = try await fixture.store(["a": "1"], secret: "guarded")
        let ruled = try await fixture.store(["a": "2"])
        try await fixture.service.setProtected(true, of: protected)
        try await fixture.service.setAccess(true, for: "/usr/bin/secret-tool", of: ruled)
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        #expect(view.secrets(of: [protected], session: session, caller: Self.tool) == nil)
        #expect(view.secrets(of: [ruled], session: session, caller: Self.tool) == nil)
        // The lane's read of the protected item still asks the person.
        let read = try await fixture.service.secret(of: protected, session: session, caller: Self.tool)
        #expect(String(decoding: read.value.unprotectedArray(), as: UTF8.self) == "guarded")
        #expect(await fixture.prompter.requests.count == 1)
    }

    @Test func inAskOrStrictModeEveryReadIsLeftToTheActor() async throws {
        for mode in [AccessMode.ask, .strict] {
            let fixture = try await Fixture(access: AccessConfiguration(mode: mode))
            let id = try await fixture.store(["a": "1"])
            let session = try await fixture.plainSession()
            #expect(fixture.service.readView.secrets(of: [id], session: session, caller: Self.tool) == nil)
        }
    }

    @Test func aBatchIsReadWholeOrNotAtAll() async throws {
        let fixture = try await Fixture()
        let one = try await fixture.store(["a": "1"], secret: "one")
        let two = try await fixture.store(["a": "2"], secret: "two")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        #expect(
            Self.text(view.secrets(of: [two, one, two], session: session, caller: Self.tool)) == ["two", "one", "two"])
        let missing = ItemID(collection: .login, number: 99)
        #expect(view.secrets(of: [one, missing], session: session, caller: Self.tool) == nil)
        let tooMany = Array(repeating: one, count: ReadView.batchLimit + 1)
        #expect(view.secrets(of: tooMany, session: session, caller: Self.tool) == nil)
        #expect(view.secrets(of: [], session: session, caller: Self.tool)?.isEmpty == true)
    }

    @Test func aLockedCollectionIsNotReadAndItsReadsWereLoggedBeforeItsKeyWent() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Logged")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        view.flushesHeld.store(true, ordering: .relaxed)
        #expect(view.secrets(of: [id], session: session, caller: Self.tool) != nil)
        #expect(view.waitingReads == 1)
        _ = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        #expect(view.secrets(of: [id], session: session, caller: Self.tool) == nil)
        // A flush while locked could not log the read any more: the lock logged it first.
        await fixture.service.flushFastReads()
        _ = try await fixture.service.unlock(.login, passcode: Fixture.passcode("correct horse"))
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.label) == ["Logged"])
        #expect(reads.first?.executable == "/usr/bin/secret-tool")
        #expect(reads.first?.client == Fixture.alice.rawValue)
    }

    @Test func aReadIsInTheAuditLogWhenTheLogIsAskedFor() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.store(["a": "1"], label: "Audited")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        view.flushesHeld.store(true, ordering: .relaxed)
        #expect(view.secrets(of: [id, id], session: session, caller: Self.tool) != nil)
        let reads = try await fixture.service.auditEntries().entries.filter { $0.action == .read }
        #expect(reads.map(\.label) == ["Audited", "Audited"])
        #expect(view.waitingReads == 0)
    }
}

extension ReadViewTests {
    @Test func aSearchFindsWhatTheActorFindsInItsOrder() async throws {
        let fixture = try await Fixture()
        // Oldest first across collections: `session`, searched last, holds the oldest.
        let oldest = try await fixture.store(["app": "x", "n": "0"], in: .session)
        fixture.time.advance(by: 10)
        _ = try await fixture.store(["app": "x", "n": "1"])
        fixture.time.advance(by: 10)
        let newest = try await fixture.store(["app": "x", "n": "2"])
        _ = try await fixture.store(["app": "y"])
        let view = fixture.service.readView
        let actor = try await fixture.service.searchItems(["app": "x"])
        let fast = view.search(["app": "x"])
        #expect(actor.unlocked.count == 3)
        #expect(actor.unlocked.first == oldest && actor.unlocked.last == newest)
        #expect(fast?.unlocked == actor.unlocked)
        #expect(fast?.locked == actor.locked)
        #expect(view.search(["app": "x", "n": "0"])?.unlocked == [oldest])
        #expect(view.search(["app": "none"])?.unlocked == [])
        #expect(view.search([:]) == nil)
    }
}

/// `Lock` takes a collection's key out of the ``ReadView`` before it wipes it: at the hold point
/// between the two, with the key still in the collection, the view already declines.
struct ReadViewRaceTests {
    @Test func betweenLeavingTheViewAndBeingWipedTheKeyReadsNothing() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store(["a": "1"])
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        #expect(view.secrets(of: [id], session: session, caller: ReadViewTests.tool) != nil)
        let atHold = Answers()
        await fixture.service.holdNextLock(of: .login) {
            let served = view.secrets(of: [id], session: session, caller: ReadViewTests.tool) != nil
            atHold.served.withLock { $0.append(served) }
        }
        _ = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        #expect(atHold.served.withLock { $0 } == [false], "the hold point ran once and the view declined there")
        #expect(view.secrets(of: [id], session: session, caller: ReadViewTests.tool) == nil)
    }
}

extension ReadViewRaceTests {
    @Test func readsRacingALockGiveTheSecretOrNothingAndNothingOnceTheLockReturned() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store(["a": "1"], secret: "raced")
        let session = try await fixture.plainSession()
        let view = fixture.service.readView
        let locked = Answers()
        let reader = Task.detached {
            var wrong = 0
            while locked.served.withLock({ $0.isEmpty }) {
                let read = view.secrets(of: [id], session: session, caller: ReadViewTests.tool)
                if let text = ReadViewTests.text(read), text != ["raced"] { wrong += 1 }
                await Task.yield()
            }
            return wrong
        }
        _ = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        locked.served.withLock { $0.append(true) }
        #expect(await reader.value == 0, "every read served gave the stored secret")
        #expect(view.secrets(of: [id], session: session, caller: ReadViewTests.tool) == nil)
    }
}

/// What the reads at a hold point gave.
private final class Answers: Sendable {
    let served = Mutex<[Bool]>([])
}
