// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A write to a fleet collection that another machine's append beat (refused as stale, nothing
/// written) is made again after a pull, from what the collection then holds; at most eight tries
/// (docs/design/fleet.md §0).
@Suite struct SharedWriteRetryTests {
    static let team = SharedPair.team

    /// Each kind of write, made on `b` while `a` appended first.
    @Test func everyKindOfWriteBeatenByAnotherMachineIsMadeAgainAfterAPull() async throws {
        let pair = try await SharedPair.make()
        let (a, b) = (pair.a, pair.b)
        let item = try await a.share(["k": "v"], "first")
        try await b.service.pullShared(Self.team)
        let session = try await b.plainSession()
        let writes: [(String, () async throws -> Void)] = [
            (
                "a create that replaces",
                {
                    let replaced = try await b.share(["k": "v"], "replaced", replace: true)
                    #expect(replaced == item)
                }
            ),
            (
                "SetSecret",
                {
                    try await b.service.setSecret(
                        Fixture.plain(Array("set".utf8), session: session), of: item, client: Fixture.alice)
                }
            ),
            ("a label", { try await b.service.setLabel("renamed", of: item) }),
            ("attributes", { try await b.service.setAttributes(["k": "v", "more": "1"], of: item) }),
            ("protection", { try await b.service.setProtected(true, of: item) }),
            ("the collection's label", { try await b.service.setLabel("Team of two", of: Self.team) }),
            (
                "an import batch",
                {
                    let outcomes = try await b.service.importItems(
                        [ImportTests.item("imported", "in", attributes: ["from": "import"])], into: Self.team,
                        dryRun: false, caller: ImportTests.caller)
                    #expect(outcomes.map(\.kind) == [.added])
                }
            ),
            ("Delete", { try await b.service.deleteItem(item) }),
        ]
        for (round, (name, write)) in writes.enumerated() {
            let filler = try await a.share(["filler": "\(round)"], "x")
            _ = b.recorder.drain()
            try await write()
            #expect(b.recorder.events.first == .itemCreated(filler), "\(name): the pull came first")
            try await a.service.pullShared(Self.team)
        }
        let (onA, onB) = await pair.items()
        #expect(onA == onB)
        #expect(!onA.contains(item))
        #expect(try await a.service.collectionInfo(Self.team).label == "Team of two")
        let imported = try #require(try await a.service.searchItems(["from": "import"], in: Self.team).first)
        #expect(try await a.holds(imported, "in"))
        #expect(try await b.holds(imported, "in"))
        #expect(await pair.log.entryCount(of: "team") == 2 + 2 * writes.count, "no write made twice")
    }

    @Test func aWriteBeatenAtEveryTryFailsAfterEightAndLeavesNothingOfItself() async throws {
        let log = MemoryFleetLog()
        let beaten = BeatenLog(log)
        let pair = try await SharedPair.make(log: log, logB: beaten)
        let a = pair.a
        await beaten.beforeEachEntry { _ = try? await a.share(["beat": "a"], "a's") }

        let error = await serviceError { () async throws(ServiceError) in try await pair.b.share(["n": "b"], "b's") }
        #expect(
            error
                == .failed(
                    "collection team was changed by other machines before each of 8 tries; nothing was saved: try again"
                ))
        #expect(await beaten.entriesTried == 8)
        #expect(try await pair.b.service.searchItems(["n": "b"], in: Self.team).isEmpty)
        #expect(await pair.b.service.itemIDs(in: Self.team).count == 7, "the seven pulls between the tries")
        await beaten.beforeEachEntry(nil)
        try await pair.b.service.pullShared(Self.team)
        let (onA, onB) = await pair.items()
        #expect(onA == onB && onA.count == 8)
        #expect(await log.entryCount(of: "team") == 9)
    }
}

/// A shared log where another machine appends just before each entry this one tries to create,
/// so every append of this one is beaten (the store seam's ``FleetLog``).
actor BeatenLog: FleetLog {
    let inner: MemoryFleetLog
    private var beat: (@Sendable () async -> Void)?
    /// How many entries this machine tried to create.
    private(set) var entriesTried = 0

    init(_ inner: MemoryFleetLog) {
        self.inner = inner
    }

    nonisolated var address: String { inner.address }
    nonisolated var kindName: String { inner.kindName }

    /// Runs `beat` before each entry this machine creates (nil: none).
    func beforeEachEntry(_ beat: (@Sendable () async -> Void)?) {
        self.beat = beat
    }

    func collections() async throws(StoreError) -> [String] { try await inner.collections() }

    func header(of collection: String) async throws(StoreError) -> (bytes: [UInt8], version: UInt64)? {
        try await inner.header(of: collection)
    }

    func replaceHeader(_ bytes: [UInt8], of collection: String, expecting version: UInt64, space: SpaceID)
        async throws(StoreError) -> UInt64
    {
        try await inner.replaceHeader(bytes, of: collection, expecting: version, space: space)
    }

    func entry(_ index: UInt64, of collection: String) async throws(StoreError) -> [UInt8]? {
        try await inner.entry(index, of: collection)
    }

    func createEntry(_ index: UInt64, _ bytes: [UInt8], of collection: String, space: SpaceID)
        async throws(StoreError)
    {
        if let beat {
            entriesTried += 1
            await beat()
        }
        try await inner.createEntry(index, bytes, of: collection, space: space)
    }
}
