// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Two machines sharing the collection `team` (docs/design/fleet.md): each a service over its
/// own vault in memory behind a `FleetRecordStore`, both over one ``MemoryFleetLog``. `a` made
/// the collection and shared it; `b` attached it.
struct SharedPair {
    static let team = CollectionID("team")
    static let passcode = "team passcode"

    let log: MemoryFleetLog
    let a: Fixture
    let b: Fixture
    let space: SpaceID

    /// Both machines with `team` unlocked (`lockedOnB`: locked on `b`), and the events so far
    /// forgotten; `b` reaches `log` through `logB` when given.
    static func make(
        lockedOnB: Bool = false, log: MemoryFleetLog = MemoryFleetLog(), logB: (any FleetLog)? = nil
    ) async throws -> SharedPair {
        let a = try await Fixture.persistent(
            storage: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: log))
        let made = try await a.makeCollection("team", passcode: passcode)
        #expect(made == team)
        try await a.service.shareCollection(team, as: "team")
        let b = try await Fixture.persistent(
            storage: FleetRecordStore(keepingMapInMemory: MemoryRecordStore(), log: logB ?? log))
        #expect(try await b.service.attachCollection("team") == team)
        let space = try await a.space(of: team)
        #expect(try await b.space(of: team) == space, "the same space on every machine")
        if !lockedOnB { try await b.unlock(team, passcode) }
        _ = a.recorder.drain()
        _ = b.recorder.drain()
        return SharedPair(log: log, a: a, b: b, space: space)
    }

    /// The item ids of `team` on each machine.
    func items() async -> (a: [ItemID], b: [ItemID]) {
        (await a.service.itemIDs(in: Self.team), await b.service.itemIDs(in: Self.team))
    }
}

extension Fixture {
    /// Stores `secret` in `team` under `attributes` (label `label`).
    @discardableResult
    func share(
        _ attributes: Attributes, _ secret: String, label: String = "shared", replace: Bool = false
    ) async throws(ServiceError) -> ItemID {
        try await store(attributes, secret: secret, label: label, in: SharedPair.team, replace: replace)
    }
}
