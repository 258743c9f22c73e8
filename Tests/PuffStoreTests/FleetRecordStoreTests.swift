// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

@testable import PuffStore

/// Two machines sharing a collection through one log (docs/design/fleet.md): each a file store
/// in its own folder under a `FleetRecordStore`, the log a `MemoryFleetLog`.
struct FleetRecordStoreTests {
    let log = MemoryFleetLog()

    /// A and B, with a collection of `records` records made on A, shared as `team` and attached
    /// on B; the chain as both machines know it.
    func twoMachines(records: Int = 3) async throws -> (FleetMachine, FleetMachine, FleetChain) {
        let a = try FleetMachine("a", log: log)
        let b = try FleetMachine("b", log: log)
        var chain = FleetChain()
        try await chain.create(in: a.store, records: records)
        try await a.store.share(chain.space, as: "team")
        #expect(try await b.store.attach("team") == chain.space)
        return (a, b, chain)
    }

    @Test func sharingOnOneMachineAndAttachingOnAnotherGivesTheSameHeaderAndJournal() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        #expect(try await b.store.header(of: space) == chain.header)
        #expect(try b.journal(space) == a.journal(space))
        #expect(try await b.records(space).count == 3)
        #expect(
            FleetRecordStore.newestHead(try await b.store.replay(space).heads)
                == FleetRecordStore.newestHead(try await a.store.replay(space).heads))
        #expect(try await a.store.generation(of: space) == 1)
        #expect(try await b.store.generation(of: space) == 1)
        #expect(a.store.sharedName(of: space) == "team")
        #expect(b.store.sharedName(of: space) == "team")
        #expect(await log.entryCount(of: "team") == 1)
    }

    @Test func anAppendOnOneMachineIsPulledByTheOtherWithItsLocatorsAndGeneration() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        var onA = chain
        let (record, head) = onA.next()
        let ticket = try await a.store.enqueueAppend(contentsOf: [record], to: space, head: head, expecting: 1)
        try await ticket.durable()
        #expect(ticket.generation == 2)
        #expect(try await a.store.generation(of: space) == 2)

        let pulled = try #require(try await b.store.pull(space))
        #expect(pulled.records == [record])
        #expect(pulled.head == head)
        #expect(pulled.generation == 2)
        let last = try #require(try await b.store.replay(space).records.last)
        #expect(pulled.locators == [RecordLocator(offset: last.offset, record: record, sequence: 4)])
        #expect(try b.store.read(pulled.locators[0], in: space) == record)
        #expect(try await b.store.generation(of: space) == 2)
        #expect(try b.journal(space) == a.journal(space))
        #expect(try await b.store.pull(space) == nil, "nothing new")
    }

    @Test func twoMachinesAppendingAtTheSameGenerationOneWinsAndTheOtherWritesNothing() async throws {
        let (a, b, chain) = try await twoMachines()
        let space = chain.space
        var onA = chain
        var onB = chain
        let first = onA.next()
        try await a.store.enqueueAppend(contentsOf: [first.record], to: space, head: first.head, expecting: 1).durable()
        let before = try b.journal(space)
        let lost = onB.next()
        await #expect(throws: StoreError.staleGeneration(space, expected: 1, current: 2)) {
            try await b.store.enqueueAppend(contentsOf: [lost.record], to: space, head: lost.head, expecting: 1)
        }
        #expect(try b.journal(space) == before, "the refused append wrote nothing")
        #expect(try await b.store.generation(of: space) == 1)

        // What the service does next: pull, then write again after the records it missed.
        onB = chain
        let pulled = try #require(try await b.store.pull(space))
        try onB.follow(pulled.records)
        let again = onB.next()
        try await b.store.enqueueAppend(contentsOf: [again.record], to: space, head: again.head, expecting: 2).durable()
        _ = try #require(try await a.store.pull(space))
        #expect(try await a.records(space).suffix(2) == [first.record, again.record])
        #expect(try a.journal(space) == b.journal(space))
        #expect(try await a.store.generation(of: space) == 3)
        #expect(try await b.store.generation(of: space) == 3)
    }

    @Test func anUnreachableLogRefusesWritesAsUnavailableAndReadsGoOn() async throws {
        let (a, _, chain) = try await twoMachines()
        let space = chain.space
        var onA = chain
        let replay = try await a.store.replay(space)
        let before = try a.journal(space)
        await log.setReachable(false)
        let (record, head) = onA.next()
        let append = await thrown { () async throws(StoreError) in
            _ = try await a.store.enqueueAppend(contentsOf: [record], to: space, head: head, expecting: 1)
        }
        let pull = await thrown { () async throws(StoreError) in _ = try await a.store.pull(space) }
        for error in [append, pull] {
            guard case .unavailable = error else {
                Issue.record("not refused as unavailable: \(String(describing: error))")
                continue
            }
        }
        #expect(try a.journal(space) == before, "nothing written locally")
        #expect(try await a.store.generation(of: space) == 1)
        let requests = await log.requests
        #expect(try await a.store.header(of: space) == chain.header)
        #expect(try await a.store.replay(space).records.map(\.bytes) == replay.records.map(\.bytes))
        let first = replay.records[0]
        let locator = RecordLocator(offset: first.offset, record: first.bytes, sequence: 1)
        #expect(try a.store.read(locator, in: space) == first.bytes)
        #expect(await log.requests == requests, "reads never ask the log")

        await log.setReachable(true)
        try await a.store.enqueueAppend(contentsOf: [record], to: space, head: head, expecting: 1).durable()
        #expect(try await a.store.generation(of: space) == 2)
    }

    @Test func compactionReKeyAndRepairOfAFleetCollectionAreRefused() async throws {
        let (a, _, chain) = try await twoMachines()
        let space = chain.space
        let before = try a.journal(space)
        let rewrite = await thrown { () async throws(StoreError) in _ = try await a.store.rewrite(space, records: []) }
        let rekey = await thrown { () async throws(StoreError) in
            try await a.store.replaceSpace(space, with: .random(), header: chain.header, records: [], head: nil)
        }
        for error in [rewrite, rekey] {
            guard case .writeFailed(let why) = error else {
                Issue.record("a fleet collection's chain was rewritten: \(String(describing: error))")
                continue
            }
            #expect(
                why.hasPrefix("\(space.hex) is a fleet collection kept in OpenBao at memory-fleet as team: "), "\(why)")
        }
        #expect(try a.journal(space) == before)
    }

    @Test func aNameTakenInTheLogOrHereAndANameThatIsNoPathAreRefused() async throws {
        let (a, b, chain) = try await twoMachines()
        let c = try FleetMachine("c", log: log)
        var other = FleetChain()
        try await other.create(in: c.store, records: 1)
        await #expect(
            throws: StoreError.writeFailed(
                "a collection named team is kept in OpenBao at memory-fleet already: attach it instead")
        ) {
            try await c.store.share(other.space, as: "team")
        }
        #expect(c.store.sharedName(of: other.space) == nil)
        await #expect(
            throws: StoreError.writeFailed(
                "team is a fleet collection of this vault already (\(chain.space.hex))")
        ) {
            _ = try await a.store.attach("team")
        }
        for name in ["../team", "team/log", ".hidden", "", "a b"] {
            await #expect(throws: StoreError.writeFailed(FleetRecordStore.nameRule(name))) {
                try await c.store.share(other.space, as: name)
            }
        }
        #expect(await log.entryCount(of: "team") == 1)
        _ = b
    }

    @Test func anEntryThatDoesNotReadIsRefusedWholeAndNothingLands() async throws {
        let (a, b, chain) = try await twoMachines()
        var onA = chain
        let (record, head) = onA.next()
        let good = FleetEntry(records: [record], head: head).encoded()
        for bad in [Array(good.dropLast()), good + [0], FleetEntry(records: [[1, 2, 3]], head: nil).encoded()] {
            await log.plant(entry: bad, at: 2, of: "team")
            let before = try b.journal(chain.space)
            let error = await thrown { () async throws(StoreError) in _ = try await b.store.pull(chain.space) }
            guard case .damaged(let file, _, _) = error else {
                Issue.record("a bad entry was pulled: \(String(describing: error))")
                continue
            }
            #expect(file == "entry 2 of team in memory-fleet")
            #expect(try b.journal(chain.space) == before)
            #expect(try await b.store.generation(of: chain.space) == 1)
        }
        _ = a
    }
}

/// The error `body` threw, or nil.
func thrown(_ body: () async throws(StoreError) -> Void) async -> StoreError? {
    do throws(StoreError) {
        try await body()
        return nil
    } catch {
        return error
    }
}
