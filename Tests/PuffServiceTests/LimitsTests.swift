// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffTesting
import Testing

/// Every resource a client can make the service hold has a limit, and going over it is refused
/// with an error that names the limit while nothing stored changes.
@Suite struct LimitsTests {
    static func limits() -> ServiceLimits {
        var limits = ServiceLimits()
        limits.sessionsPerClient = 3
        limits.sessions = 5
        limits.promptsPerClient = 2
        limits.prompts = 3
        limits.itemsPerCollection = 2
        limits.collections = 3
        return limits
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let limits = ServiceLimits()
        #expect(limits.labelBytes == 4096)
        #expect(limits.attributesPerItem == 256)
        #expect(limits.attributeBytesPerItem == 65_536)
        #expect(limits.secretBytes == 1_048_576)
        #expect([limits.sessionsPerClient, limits.promptsPerClient] == [64, 64])
        #expect([limits.sessions, limits.prompts] == [4096, 4096])
    }

    @Test func sessionsAreLimitedInAllAndClosingOneMakesRoom() async throws {
        let fixture = try await Fixture(limits: Self.limits())
        let first = try await fixture.plainSession(Fixture.alice)
        _ = try await fixture.plainSession(Fixture.alice)
        _ = try await fixture.plainSession(Fixture.alice)
        _ = try await fixture.plainSession(Fixture.bob)
        _ = try await fixture.plainSession(Fixture.bob)
        let full = await serviceError { () async throws(ServiceError) in try await fixture.plainSession(Fixture.bob) }
        #expect(full == .limitExceeded("at most 5 sessions may be open at once"))
        try await fixture.service.closeSession(first, client: Fixture.alice)
        _ = try await fixture.plainSession(Fixture.bob)
        await fixture.service.clientVanished(Fixture.alice)
        for _ in 0..<2 { _ = try await fixture.plainSession(ClientID(":1.12")) }
    }

    @Test func aClientAtItsSessionLimitLosesItsLeastRecentlyUsedSessionAndNoOneElses() async throws {
        let fixture = try await Fixture(limits: Self.limits())
        let item = try await fixture.store(["k": "v"])
        let bobs = try await fixture.plainSession(Fixture.bob)
        let first = try await fixture.plainSession(Fixture.alice)
        let second = try await fixture.plainSession(Fixture.alice)
        let third = try await fixture.plainSession(Fixture.alice)
        // Reading through `first` makes `second` the least recently used.
        _ = try await fixture.service.secret(of: item, session: first, caller: Caller(Fixture.alice))
        let fourth = try await fixture.plainSession(Fixture.alice)
        let gone = await serviceError { () async throws(ServiceError) in
            try await fixture.service.secret(of: item, session: second, caller: Caller(Fixture.alice))
        }
        #expect(gone == .noSession)
        for session in [first, third, fourth] {
            _ = try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice))
        }
        _ = try await fixture.service.secret(of: item, session: bobs, caller: Caller(Fixture.bob))
    }

    @Test func waitingPromptsAreLimitedAndReturnedWhenTheyEndOrTheirOwnerLeaves() async throws {
        let fixture = try await Fixture(limits: Self.limits())
        _ = await fixture.service.lock([Fixture.reference(.login)], client: Fixture.alice)
        let target = [Fixture.reference(.login)]
        let first = try #require(try await fixture.service.unlock(target, client: Fixture.alice).prompt)
        _ = try await fixture.service.unlock(target, client: Fixture.alice)
        let refused = await serviceError { () async throws(ServiceError) in
            try await fixture.service.unlock(target, client: Fixture.alice)
        }
        #expect(refused == .limitExceeded("a connection may have at most 2 prompts waiting"))
        _ = try await fixture.service.unlock(target, client: Fixture.bob)
        let full = await serviceError { () async throws(ServiceError) in
            try await fixture.service.unlock(target, client: Fixture.bob)
        }
        #expect(full == .limitExceeded("at most 3 prompts may wait at once"))
        try await fixture.service.dismissPrompt(first, client: Fixture.alice)
        _ = try await fixture.service.unlock(target, client: Fixture.alice)
        await fixture.service.clientVanished(Fixture.alice)
        #expect(try await fixture.service.unlock(target, client: Fixture.bob).prompt != nil)
    }

    @Test func oversizedItemsAreRefusedAndNothingIsStored() async throws {
        let fixture = try await Fixture()
        let tooMany = Dictionary(uniqueKeysWithValues: (0..<257).map { ("n\($0)", "v") })
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.store(tooMany) }
                == .limitExceeded("an item may have at most 256 attributes"))
        let tooLong = ["n": String(repeating: "v", count: 65_536)]
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.store(tooLong) }
                == .limitExceeded("an item's attributes may hold at most 65536 bytes"))
        let label = String(repeating: "é", count: 2049)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.store(["k": "v"], label: label) }
                == .limitExceeded("a label may hold at most 4096 bytes"))
        let huge = String(repeating: "s", count: 1_048_577)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.store(["k": "v"], secret: huge) }
                == .limitExceeded("a secret may hold at most 1048576 bytes"))
        let query = Dictionary(uniqueKeysWithValues: (0..<257).map { ("n\($0)", "v") })
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.service.searchItems(query) }
                == .limitExceeded("a search may name at most 256 attributes"))
        #expect(await fixture.service.itemIDs(in: .login).isEmpty)
        #expect(fixture.recorder.events.isEmpty)
        let largest = try await fixture.store(["k": "v"], secret: String(repeating: "s", count: 1_048_576))
        #expect(try await fixture.read(largest).utf8.count == 1_048_576)
    }

    @Test func collectionsAndItemsPerCollectionAreLimited() async throws {
        var limits = ServiceLimits()
        limits.itemsPerCollection = 2
        limits.collections = 3
        let fixture = try await Fixture(limits: limits)
        _ = try await fixture.service.createCollectionAtOnce(label: "A", alias: nil, client: Fixture.alice)
        #expect(
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.createCollectionAtOnce(label: "B", alias: nil, client: Fixture.alice)
            } == .limitExceeded("at most 3 collections may exist"))
        try await fixture.store(["n": "1"], replace: false)
        let second = try await fixture.store(["n": "2"], replace: false)
        #expect(
            await serviceError { () async throws(ServiceError) in try await fixture.store(["n": "3"], replace: false) }
                == .limitExceeded("a collection holds at most 2 items"))
        #expect(try await fixture.store(["n": "2"], secret: "replaced") == second, "replacing needs no room")
    }

    /// Issue 24 item 12: a client creating collections until refused learnt how many closed
    /// hidden collections the vault holds.
    @Test func closedHiddenCollectionsLeaveTheRoomAClientSeesAsIfTheyDidNotExist() async throws {
        var limits = ServiceLimits()
        limits.collections = 3
        let fixture = try await Fixture.persistent(limits: limits)
        let stash = try await fixture.makeCollection("Stash", passcode: "stash pass", isHidden: true)
        // Open, it is one of the collections clients see: login, Stash and session fill the vault.
        #expect(
            await serviceError { () async throws(ServiceError) in
                _ = try await fixture.service.createCollection(label: "A", alias: nil, client: Fixture.alice)
            } == .limitExceeded("at most 3 collections may exist"))
        try await fixture.service.lock([stash])
        let (created, prompt) = try await fixture.service.createCollection(
            label: "A", alias: nil, client: Fixture.alice)
        #expect(created == nil && prompt != nil, "a prompt asks for the new collection's passcode")
        // The hidden ones have their own bound, which only puffctl meets.
        for (label, passcode) in [("Second", "second pass"), ("Third", "third pass")] {
            try await fixture.service.lock([try await fixture.makeCollection(label, passcode: passcode, isHidden: true)]
            )
        }
        #expect(
            await serviceError { () async throws(ServiceError) in
                _ = try await fixture.makeCollection("Fourth", passcode: "fourth pass", isHidden: true)
            } == .limitExceeded("at most 3 hidden collections may exist"))
    }
}
