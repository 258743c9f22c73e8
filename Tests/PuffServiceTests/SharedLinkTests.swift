// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// What `status` says of a fleet collection's link to its shared store (``SharedLink``): its
/// store's kind, whether the last pull or append reached it, when, and when it last answered.
struct SharedLinkTests {
    @Test func theLinkNamesTheStoreAndKeepsWhenItLastAnsweredWhileItIsUnreachable() async throws {
        let pair = try await SharedPair.make()
        let start = pair.a.time.now()
        try await pair.a.service.pullShared(SharedPair.team)
        #expect(
            await pair.a.service.sharedLink(of: SharedPair.team)
                == SharedLink(
                    name: "team", store: "memory", reachable: true, reason: "", checkedAt: start, reachedAt: start))

        await pair.log.setReachable(false)
        pair.a.time.advance(by: 30)
        #expect(await pair.a.service.pullAllShared() == false)
        let reason = "memory-fleet cannot be reached (a test made it unreachable)"
        let offline = SharedLink(
            name: "team", store: "memory", reachable: false, reason: reason, checkedAt: start + 30, reachedAt: start)
        #expect(await pair.a.service.sharedLink(of: SharedPair.team) == offline)
        pair.a.time.advance(by: 30)
        #expect(await pair.a.service.pullAllShared() == false)
        #expect(await pair.a.service.sharedLink(of: SharedPair.team)?.reachedAt == start, "still the last answer")
        #expect(await pair.a.service.vaultStatus.collections.first { $0.id == "team" }?.shared?.checkedAt == start + 60)

        await pair.log.setReachable(true)
        pair.a.time.advance(by: 5)
        #expect(await pair.a.service.pullAllShared())
        #expect(
            await pair.a.service.sharedLink(of: SharedPair.team)
                == SharedLink(
                    name: "team", store: "memory", reachable: true, reason: "", checkedAt: start + 65,
                    reachedAt: start + 65))
    }

    @Test func aCollectionOfThisVaultAloneHasNoLink() async throws {
        let pair = try await SharedPair.make()
        let own = try await pair.a.makeCollection("own", passcode: "own passcode")
        #expect(await pair.a.service.sharedLink(of: own) == nil)
        #expect(await pair.a.service.vaultStatus.collections.first { $0.id == own.rawValue }?.shared == nil)
    }

    @Test func beforeAnyPullTheLinkIsNotTriedYetAndNamesTheStore() async throws {
        let fixture = try await Fixture.persistent(
            storage: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: MemoryFleetLog()))
        let id = try await fixture.makeCollection("team", passcode: SharedPair.passcode)
        try await fixture.service.shareCollection(id, as: "team")
        let link = await fixture.service.sharedLink(of: id)
        #expect(
            link
                == SharedLink(name: "team", store: "memory", reachable: nil, reason: "", checkedAt: 0, reachedAt: 0))
    }
}
