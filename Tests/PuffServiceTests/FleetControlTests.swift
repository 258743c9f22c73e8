// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Making fleet collections through the service (`puffctl collection create NAME --store openbao`
/// and `puffctl collection attach NAME --store openbao`): two vaults in memory behind
/// `FleetRecordStore`s over one `MemoryFleetLog` are two machines.
struct FleetControlTests {
    static let team = CollectionID("team")
    static let passcode = "team passcode"
    let log = MemoryFleetLog()

    /// A machine whose vault keeps fleet collections in `log`.
    func machine() async throws -> Fixture {
        try await Fixture.persistent(storage: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log))
    }

    /// Machine A with `team` holding one item, shared as `team`.
    func sharedOnA() async throws -> (Fixture, ItemID) {
        let a = try await machine()
        #expect(try await a.makeCollection("team", passcode: Self.passcode) == Self.team)
        let item = try await a.store(["app": "mail"], secret: "from a", in: Self.team)
        try await a.service.shareCollection(Self.team, as: "team")
        return (a, item)
    }

    @Test func aCollectionSharedOnOneMachineIsAttachedLockedOnAnotherAndItsPasscodeOpensIt() async throws {
        let (a, item) = try await sharedOnA()
        let space = try await a.space(of: Self.team)
        #expect(a.storage.sharedName(of: space) == "team")
        #expect(await log.entryCount(of: "team") == 1)

        let b = try await machine()
        _ = b.recorder.drain()
        #expect(try await b.service.attachCollection("team") == Self.team)
        #expect(b.recorder.drain().contains(.collectionCreated(Self.team)))
        #expect(try await b.space(of: Self.team) == space, "the same space, in B's catalog")
        #expect(b.storage.sharedName(of: space) == "team")
        #expect(try await b.service.collectionInfo(Self.team).isLocked)
        try await b.unlock(Self.team, Self.passcode)
        #expect(await b.service.itemIDs(in: Self.team) == [item])
        #expect(try await b.holds(item, "from a"))

        // B writes to it: the entry goes to the log first.
        try await b.store(["app": "chat"], secret: "from b", in: Self.team)
        #expect(await log.entryCount(of: "team") == 2)
    }

    @Test func aVaultWithNoPasscodeYetAttachesAndInitLaterAddsLogin() async throws {
        let (_, item) = try await sharedOnA()
        let b = try await Fixture(
            storage: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log),
            mode: .persistent(kdf: .interactive))
        #expect(await !b.service.isInitialized)
        #expect(try await b.service.attachCollection("team") == Self.team)
        #expect(await b.service.isInitialized)
        try await b.unlock(Self.team, Self.passcode)
        #expect(try await b.holds(item, "from a"))
        try await b.service.initialize(passcode: Fixture.passcode("correct horse"))
        #expect(try await b.storedCatalog().collections.map(\.id).sorted() == ["login", "team"])
    }

    @Test func sharingWithoutASharedStoreOrUnderATakenNameIsRefusedAndLeavesTheCollectionAlone() async throws {
        let plain = try await Fixture.persistent()
        _ = try await plain.makeCollection("team", passcode: Self.passcode)
        await #expect(throws: ServiceError.failed("collection team was not shared: \(MemoryRecordStore.noSharedStore)"))
        {
            try await plain.service.shareCollection(Self.team, as: "team")
        }

        _ = try await sharedOnA()
        let c = try await machine()
        _ = try await c.makeCollection("team", passcode: "other passcode")
        let space = try await c.space(of: Self.team)
        await #expect(
            throws: ServiceError.failed(
                "collection team was not shared: vault write failed: a collection named team is kept in OpenBao at "
                    + "memory-fleet already: attach it instead")
        ) {
            try await c.service.shareCollection(Self.team, as: "team")
        }
        #expect(c.storage.sharedName(of: space) == nil)
        #expect(await log.entryCount(of: "team") == 1)
    }

    @Test func attachingACollectionWhoseIdIsTakenHereAddsNothing() async throws {
        _ = try await sharedOnA()
        let b = try await machine()
        _ = try await b.makeCollection("team", passcode: "b own passcode")
        let before = try await b.storage.spaces()
        let catalog = try await b.storedCatalog()
        do {
            _ = try await b.service.attachCollection("team")
            Issue.record("a second collection named team was attached")
        } catch {
            guard case .failed(let why) = error else { throw error }
            #expect(why == "team was not attached: a collection named team exists here already", "\(why)")
        }
        #expect(try await b.storage.spaces() == before, "the copy was removed")
        #expect(try await b.storedCatalog() == catalog)
        #expect(before.allSatisfy { b.storage.sharedName(of: $0) == nil })
    }

    @Test func anUnreachableStoreAttachesNothingAndSharesNothing() async throws {
        let (a, _) = try await sharedOnA()
        _ = a
        await log.setReachable(false)
        let b = try await machine()
        let before = try await b.storage.spaces()
        do {
            _ = try await b.service.attachCollection("team")
            Issue.record("attached from an unreachable store")
        } catch {
            guard case .failed(let why) = error else { throw error }
            #expect(why.hasPrefix("team was not attached: the shared store is unavailable: "), "\(why)")
        }
        #expect(try await b.storage.spaces() == before)

        _ = try await b.makeCollection("work", passcode: Self.passcode)
        do {
            try await b.service.shareCollection(CollectionID("work"), as: "work")
            Issue.record("shared through an unreachable store")
        } catch {
            guard case .failed(let why) = error else { throw error }
            #expect(why.hasPrefix("collection work was not shared: the shared store is unavailable: "), "\(why)")
        }
        let work = try await b.space(of: CollectionID("work"))
        #expect(b.storage.sharedName(of: work) == nil)
    }
}
