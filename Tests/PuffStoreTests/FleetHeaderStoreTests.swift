// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

@testable import PuffStore

/// A fleet collection's header moving between machines at the store's level (docs/design/fleet.md
/// §5): versions, compare-and-set, and taking a newer one into the local header file and the
/// map. The store judges no header (the service checks it with the collection's key), so any
/// bytes that are not this vault's header stand for another machine's.
struct FleetHeaderStoreTests {
    let log = MemoryFleetLog()

    /// A and B sharing `team`, made on A and attached on B.
    func twoMachines() async throws -> (FleetMachine, FleetMachine, FleetChain) {
        let a = try FleetMachine("a", log: log)
        let b = try FleetMachine("b", log: log)
        var chain = FleetChain()
        try await chain.create(in: a.store, records: 2)
        try await a.store.share(chain.space, as: "team")
        #expect(try await b.store.attach("team") == chain.space)
        return (a, b, chain)
    }

    /// The header file of `space` in `machine`'s folder.
    func headerFile(_ machine: FleetMachine, _ space: SpaceID) throws -> Data {
        try Data(contentsOf: machine.folder.appending("\(space.hex).header"))
    }

    @Test func aHeaderReplacedOnOneMachineIsNewerOnTheOtherAndTakingItWritesTheFileAndTheMap() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        #expect(try await b.store.sharedHeader(of: space) == nil, "attached with the newest header")
        let changed = chain.header(id: "changed on a")
        try await a.store.replaceHeader(changed, of: space)
        #expect(await log.storedHeader(of: "team")?.version == 2)
        #expect(try await a.store.sharedHeader(of: space) == nil, "a wrote it: nothing newer for a")

        let found = try #require(try await b.store.sharedHeader(of: space))
        #expect(found == SharedHeader(bytes: changed, version: 2))
        #expect(try await b.store.header(of: space) == chain.header, "reading it writes nothing")
        #expect(try await b.store.adoptHeader(found, of: space))
        #expect(try await b.store.header(of: space) == changed)
        #expect(b.store.map.shares[space]?.headerVersion == 2)
        #expect(try await b.store.sharedHeader(of: space) == nil)
        #expect(try await b.store.adoptHeader(found, of: space) == false, "taken once")

        // What a restart reads: the header file and the version the map file noted.
        let reopened = try FleetRecordStore(files: b.files, log: log)
        #expect(try await reopened.header(of: space) == changed)
        #expect(reopened.map.shares[space]?.headerVersion == 2)
        #expect(try await reopened.sharedHeader(of: space) == nil)
    }

    @Test func twoMachinesChangingTheHeaderAtOnceTheSecondIsRefusedUntilItTookTheFirsts() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        try await a.store.replaceHeader(chain.header(id: "from a"), of: space)
        let before = try headerFile(b, space)
        await #expect(throws: StoreError.staleGeneration(space, expected: 1, current: 2)) {
            try await b.store.replaceHeader(chain.header(id: "from b"), of: space)
        }
        #expect(try headerFile(b, space) == before, "the refused change wrote nothing here")
        #expect(await log.storedHeader(of: "team")?.bytes == chain.header(id: "from a"))

        let found = try #require(try await b.store.sharedHeader(of: space))
        #expect(try await b.store.adoptHeader(found, of: space))
        try await b.store.replaceHeader(chain.header(id: "from b"), of: space)
        #expect(await log.storedHeader(of: "team")?.version == 3)
        let onA = try #require(try await a.store.sharedHeader(of: space))
        #expect(onA == SharedHeader(bytes: chain.header(id: "from b"), version: 3))
    }

    @Test func aHeaderOlderThanTheOneTakenOrWrittenSinceIsNotTaken() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        try await a.store.replaceHeader(chain.header(id: "second"), of: space)
        let second = try #require(try await b.store.sharedHeader(of: space))
        try await a.store.replaceHeader(chain.header(id: "third"), of: space)
        let third = try #require(try await b.store.sharedHeader(of: space))
        #expect(try await b.store.adoptHeader(third, of: space))
        #expect(try await b.store.adoptHeader(second, of: space) == false, "read before the third, taken after it")
        #expect(try await b.store.header(of: space) == chain.header(id: "third"))
        #expect(b.store.map.shares[space]?.headerVersion == 3)
    }

    @Test func aHeaderWrittenWhoseVersionTheMapLostIsFoundAgainAndTakingItAgainChangesNothing() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        let changed = chain.header(id: "changed")
        try await a.store.replaceHeader(changed, of: space)
        // A crash after the header file was replaced and before the map was: the file is new,
        // the map still notes version 1.
        try await b.files.replaceHeader(changed, of: space)
        let reopened = try FleetRecordStore(files: b.files, log: log)
        #expect(reopened.map.shares[space]?.headerVersion == 1)
        let found = try #require(try await reopened.sharedHeader(of: space))
        #expect(try await reopened.adoptHeader(found, of: space))
        #expect(try await reopened.header(of: space) == changed)
        #expect(reopened.map.shares[space]?.headerVersion == 2)
    }

    @Test func anUnreachableLogFindsNoHeaderAndASpaceOfThisVaultAloneHasNone() async throws {
        let (_, b, chain) = try await twoMachines()
        let own = FleetChain()
        try await b.store.replaceHeader(own.header, of: own.space)
        #expect(try await b.store.sharedHeader(of: own.space) == nil)
        #expect(
            try await b.store.adoptHeader(SharedHeader(bytes: own.header(id: "x"), version: 9), of: own.space) == false)
        #expect(try await b.store.header(of: own.space) == own.header)

        await log.setReachable(false)
        do {
            _ = try await b.store.sharedHeader(of: chain.space)
            Issue.record("an unreachable log answered")
        } catch {
            guard case .unavailable = error else {
                Issue.record("not unavailable: \(error)")
                return
            }
        }
    }
}
