// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// What would rewrite a fleet collection's chain (compaction, repair) is refused, or skipped when
/// automatic (docs/design/fleet.md §4): the other machines hold the same chain. Its `passwd`
/// changes the passcode slot rather than re-key it (SharedHeaderTests).
@Suite struct SharedRefusalTests {
    static let team = SharedPair.team

    static func refusal(_ what: String) -> ServiceError {
        .failed(
            "\(what) of collection team is refused: it is a fleet collection (shared as team), whose chain of "
                + "records the other machines hold too")
    }

    @Test func compactionAndRepairOfASharedCollectionAreRefusedAndCompactingAllSkipsIt() async throws {
        let pair = try await SharedPair.make()
        let item = try await pair.a.share(["n": "1"], "one")
        try await pair.a.service.setLabel("renamed", of: item)
        let records = try await pair.a.storage.replay(pair.space).records.count

        let compaction = await serviceError { () async throws(ServiceError) in
            try await pair.a.service.compact(Self.team)
        }
        #expect(compaction == Self.refusal("rewriting the journal"))
        let repair = await serviceError { () async throws(ServiceError) in try await pair.a.service.repair(Self.team) }
        #expect(repair == Self.refusal("repair"))
        _ = try await pair.a.service.compact(nil)
        #expect(try await pair.a.storage.replay(pair.space).records.count == records, "no record rewritten")
    }

    @Test func lockedSearchToOrFromAlwaysIsRefusedBeforeTheHeaderChangesAnywhere() async throws {
        let pair = try await SharedPair.make()
        let before = try await pair.a.storage.header(of: pair.space)
        let shared = await pair.log.storedHeader(of: "team")
        let error = await serviceError { () async throws(ServiceError) in
            try await pair.a.service.setLockedSearch(
                .never, of: Self.team, passcode: Fixture.passcode(SharedPair.passcode), caller: SlotUnlockTests.caller)
        }
        #expect(error == Self.refusal("changing locked search to or from always"))
        #expect(try await pair.a.storage.header(of: pair.space) == before)
        #expect(await pair.log.storedHeader(of: "team")?.version == shared?.version)
    }

    @Test func aSharedCollectionFullOfDeadRecordsIsNotCompactedAfterAWrite() async throws {
        let pair = try await SharedPair.make()
        let item = try await pair.a.share(["n": "1"], "one")
        // Past what compacts a collection of this vault's own after a write (256 dead records).
        for round in 0..<260 { try await pair.a.service.setLabel("label \(round)", of: item) }
        #expect(try await pair.a.storage.replay(pair.space).records.count == 262, "the collection's, 261 of the item")
        try await pair.b.service.pullShared(Self.team)
        #expect(try await pair.b.service.itemInfo(item).label == "label 259")
    }
}
