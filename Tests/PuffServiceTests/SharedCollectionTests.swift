// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Two services sharing a fleet collection through one log (docs/design/fleet.md): what one
/// writes reaches the other's memory and clients at its pull, writes made at once are both kept,
/// and a store that cannot be reached fails writes, not reads.
@Suite struct SharedCollectionTests {
    static let team = SharedPair.team

    @Test func anItemCreatedOnOneMachineAppearsOnTheOtherAfterItsPullWithItsEvent() async throws {
        let pair = try await SharedPair.make()
        let item = try await pair.a.share(["app": "mail"], "from a", label: "Mail")

        #expect(await pair.b.service.itemIDs(in: Self.team).isEmpty, "nothing before the pull")
        #expect(try await pair.b.service.pullShared(Self.team) == 1)
        #expect(await pair.b.service.itemIDs(in: Self.team) == [item])
        #expect(pair.b.recorder.drain() == [.itemCreated(item)])
        #expect(try await pair.b.holds(item, "from a"))
        let info = try await pair.b.service.itemInfo(item)
        #expect(info.label == "Mail" && info.attributes == ["app": "mail"])
        #expect(try await pair.b.service.searchItems(["app": "mail"], in: Self.team) == [item])
        #expect(try await pair.b.service.pullShared(Self.team) == 0, "nothing twice")
    }

    @Test func twoWritesFromTheSameGenerationAreBothKeptOnBothMachines() async throws {
        let pair = try await SharedPair.make()
        async let fromA = pair.a.share(["who": "a"], "secret a")
        async let fromB = pair.b.share(["who": "b"], "secret b")
        let (itemA, itemB) = try await (fromA, fromB)
        #expect(itemA != itemB, "the write that lost got the next number")

        try await pair.a.service.pullShared(Self.team)
        try await pair.b.service.pullShared(Self.team)
        let (onA, onB) = await pair.items()
        #expect(onA == onB && Set(onA) == [itemA, itemB])
        for fixture in [pair.a, pair.b] {
            #expect(try await fixture.holds(itemA, "secret a"))
            #expect(try await fixture.holds(itemB, "secret b"))
        }
        #expect(await pair.log.entryCount(of: "team") == 3, "the share, then one entry per write")
    }

    @Test func aDeleteOnOneMachineIsADeleteWithItsEventOnTheOther() async throws {
        let pair = try await SharedPair.make()
        let kept = try await pair.a.share(["n": "1"], "one")
        let gone = try await pair.a.share(["n": "2"], "two")
        try await pair.b.service.pullShared(Self.team)
        _ = pair.b.recorder.drain()

        try await pair.a.service.deleteItem(gone)
        #expect(try await pair.b.service.pullShared(Self.team) == 1)
        #expect(pair.b.recorder.drain() == [.itemDeleted(gone)])
        #expect(await pair.b.service.itemIDs(in: Self.team) == [kept])
        #expect(try await pair.b.service.searchItems(["n": "2"], in: Self.team).isEmpty)
    }

    @Test func aLockedCollectionPullsAndShowsTheNewItemsLockedViewThenOpensIt() async throws {
        let pair = try await SharedPair.make(lockedOnB: true)
        let item = try await pair.a.share(["app": "vpn"], "tunnel", label: "VPN")

        #expect(try await pair.b.service.pullShared(Self.team) == 1)
        #expect(pair.b.recorder.drain() == [.itemCreated(item)])
        let locked = try await pair.b.service.itemInfo(item)
        #expect(locked.isLocked && locked.label.isEmpty && locked.attributes.isEmpty)
        // Found through the blind index while locked, as a start would find it.
        #expect(try await pair.b.service.searchItems(["app": "vpn"]).locked == [item])

        try await pair.b.unlock(Self.team, SharedPair.passcode)
        #expect(try await pair.b.service.itemInfo(item).label == "VPN")
        #expect(try await pair.b.holds(item, "tunnel"))
        // The unlock read the journal whole: the pulled records are in its chain, so writes go on.
        let next = try await pair.b.share(["app": "ssh"], "key")
        try await pair.a.service.pullShared(Self.team)
        #expect(try await pair.a.holds(next, "key"))
    }

    @Test func anUnreachableLogFailsWritesAsOfflineKeepsReadsAndThePullCatchesUpLater() async throws {
        let pair = try await SharedPair.make()
        let before = try await pair.a.share(["n": "1"], "one")
        try await pair.b.service.pullShared(Self.team)
        await pair.log.setReachable(false)

        let write = await serviceError { () async throws(ServiceError) in try await pair.a.share(["n": "2"], "two") }
        let reason = "memory-fleet cannot be reached (a test made it unreachable)"
        #expect(write == .offline(collection: "team", reason: reason))
        #expect(write?.description.hasPrefix("collection team is offline: its shared store cannot be reached") == true)
        #expect(await pair.a.service.itemIDs(in: Self.team) == [before], "nothing of the write in memory")
        #expect(try await pair.a.holds(before, "one"), "reads go on")
        let pull = await serviceError { () async throws(ServiceError) in try await pair.b.service.pullShared(Self.team)
        }
        #expect(pull == .offline(collection: "team", reason: reason))
        let link = await pair.a.service.sharedLink(of: Self.team)
        #expect(link?.name == "team" && link?.reachable == false && link?.reason == reason)
        #expect(await pair.a.service.vaultStatus.collections.first { $0.id == "team" }?.shared == link)
        #expect(await pair.b.service.pullAllShared() == false)

        await pair.log.setReachable(true)
        let later = try await pair.a.share(["n": "3"], "three")
        #expect(await pair.b.service.pullAllShared())
        #expect(await pair.b.service.itemIDs(in: Self.team) == [before, later])
        #expect(try await pair.b.holds(later, "three"))
        #expect(await pair.b.service.sharedLink(of: Self.team)?.reachable == true)
    }

    @Test func aLockedMachineSeesAChangedAndADeletedItemAsTheJournalSaysThenOpensThem() async throws {
        let pair = try await SharedPair.make()
        let changed = try await pair.a.share(["n": "1"], "one")
        let deleted = try await pair.a.share(["n": "2"], "two")
        try await pair.b.service.pullShared(Self.team)
        try await pair.b.service.lock([Self.team])
        _ = pair.b.recorder.drain()

        try await pair.a.service.setAttributes(["n": "3"], of: changed)
        try await pair.a.service.deleteItem(deleted)
        #expect(try await pair.b.service.pullShared(Self.team) == 2)
        #expect(pair.b.recorder.drain() == [.itemChanged(changed, []), .itemDeleted(deleted)])
        #expect(try await pair.b.service.searchItems(["n": "3"]).locked == [changed])
        #expect(try await pair.b.service.searchItems(["n": "1"]).locked.isEmpty)
        try await pair.b.unlock(Self.team, SharedPair.passcode)
        #expect(await pair.b.service.itemIDs(in: Self.team) == [changed])
        #expect(try await pair.b.service.itemInfo(changed).attributes == ["n": "3"])
    }
}

extension SharedCollectionTests {
    @Test func aPulledRecordThatDoesNotAuthenticateLeavesTheCollectionDamagedAndReadable() async throws {
        let pair = try await SharedPair.make()
        let good = try await pair.a.share(["n": "1"], "one")
        // Entry 2 again as entry 3, its record's MAC (the record's last byte) flipped: what an
        // operator of the shared store, or a forger with its token, could write.
        var forged = try #require(try await pair.log.entry(2, of: "team"))
        let length = Int(forged[4]) | Int(forged[5]) << 8 | Int(forged[6]) << 16 | Int(forged[7]) << 24
        forged[8 + length - 1] ^= 0x01
        await pair.log.plant(entry: forged, at: 3, of: "team")

        #expect(try await pair.b.service.pullShared(Self.team) == 2)
        #expect(pair.b.recorder.drain() == [.itemCreated(good)], "nothing of the forged record")
        let damage = await pair.b.service.vaultStatus.collections.first { $0.id == "team" }?.damage
        #expect(damage?.contains("record does not authenticate") == true)
        #expect(try await pair.b.holds(good, "one"), "what authenticates is readable")
        let write = await serviceError { () async throws(ServiceError) in try await pair.b.share(["n": "2"], "two") }
        let why: String? = if case .damaged(let why)? = write { why } else { nil }
        #expect(why?.contains("it is a fleet collection, which is not repaired here") == true)
    }
}
