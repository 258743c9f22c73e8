// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Compaction rewrites a journal with its live records only, sealed again in a new chain
/// (docs/vault-format.md, Records): on `puffctl compact` of an unlocked collection, and on its own
/// once dead records outweigh live ones.
@Suite struct CompactionTests {
    /// Stores or replaces the item whose attributes are `["n": name]` through one session.
    static func put(
        _ fixture: Fixture, _ name: String, _ secret: String, in collection: CollectionID = .login,
        session: SessionID
    ) async throws -> ItemID {
        try await fixture.service.createItem(
            in: collection, label: "item \(name)", attributes: ["n": name], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session), replace: true, client: Fixture.alice)
    }

    /// Checks that exactly `expected` (item → secret) is in `collection`, with labels as ``put``
    /// gave them.
    static func expectItems(
        _ fixture: Fixture, _ expected: [ItemID: String], in collection: CollectionID = .login,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(
            await fixture.service.itemIDs(in: collection) == expected.keys.sorted { $0.number < $1.number },
            sourceLocation: sourceLocation)
        let session = try await fixture.plainSession()
        for (item, secret) in expected {
            let value = try await fixture.service.secret(of: item, session: session, caller: Caller(Fixture.alice))
                .value
            let exact = value.unprotectedArray() == Array(secret.utf8)
            #expect(exact, "item \(item.number) holds its newest secret", sourceLocation: sourceLocation)
        }
    }

    @Test func compactingLeavesOnlyLiveRecordsAndEveryExactSecretSurvivesARestart() async throws {
        let first = try await Fixture.persistent()
        let session = try await first.plainSession()
        var live: [ItemID: String] = [:]
        var items: [ItemID] = []
        for number in 1...6 { items.append(try await Self.put(first, "\(number)", "v\(number)", session: session)) }
        for number in 1...6 { live[items[number - 1]] = "v\(number)" }
        for secret in ["v1-b", "v1-c"] { live[try await Self.put(first, "1", secret, session: session)] = secret }
        try await first.service.setLabel("relabelled", of: items[1])
        try await first.service.setSecret(
            Fixture.plain(Array("v3-b".utf8), session: session), of: items[2], client: Fixture.alice)
        live[items[2]] = "v3-b"
        for gone in [items[3], items[4]] {
            try await first.service.deleteItem(gone)
            live[gone] = nil
        }
        first.time.advance(by: 60)
        try await first.service.setLabel("Renamed", of: .login)
        let space = try await first.space(of: .login)
        #expect(await first.storage.records(of: space).count == 14)

        #expect(try await first.service.compact(.login) > 0)
        let records = try await first.parsedRecords(of: space)
        #expect(records.map(\.kind) == [.collection, .item, .item, .item, .item])
        try await Self.expectItems(first, live)

        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "correct horse")
        try await Self.expectItems(fixture, live)
        #expect(try await fixture.service.itemInfo(items[1]).label == "relabelled")
        let info = try await fixture.service.collectionInfo(.login)
        #expect(info.label == "Renamed")
        #expect(info.modified == 1_700_000_060)
        #expect(try await Self.put(fixture, "7", "v7", session: try await fixture.plainSession()).number == 7)
    }

    enum LockedState: String, CaseIterable {
        /// Locked since start: the service holds its records as read from the journal.
        case notOpenedSinceStart
        /// Unlocked, used and locked again: its records are not in memory, its keys are gone.
        case lockedAfterUse
        /// A private collection: nothing of it is in memory while locked.
        case privateAndLocked
    }

    @Test(arguments: LockedState.allCases)
    func aLockedCollectionIsCompactedOnceUnlockedWithItsRecordsSealedAgainInANewChain(state: LockedState) async throws {
        var fixture = try await Fixture.persistent()
        let isPrivate = state == .privateAndLocked
        let collection =
            isPrivate ? try await fixture.makeCollection("Diary", passcode: "diary pass", isPrivate: true) : .login
        let passcode = isPrivate ? "diary pass" : "correct horse"
        let session = try await fixture.plainSession()
        var items: [ItemID] = []
        for number in 1...4 {
            items.append(try await Self.put(fixture, "\(number)", "v\(number)", in: collection, session: session))
        }
        _ = try await Self.put(fixture, "1", "v1-b", in: collection, session: session)
        try await fixture.service.deleteItem(items[3])  // the highest number
        fixture.time.advance(by: 60)
        try await fixture.service.deleteItem(items[1])  // the newest deletion, and the newest record
        try await fixture.service.lock([collection])
        if state == .notOpenedSinceStart { fixture = try await fixture.restarted() }
        let space = try await fixture.space(of: collection)
        let before = try await fixture.parsedRecords(of: space)
        #expect(before.count == 8)

        let refused = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.compact(collection)
        }
        #expect(refused == .isLocked, "sealing records again needs the key")
        #expect(try await fixture.parsedRecords(of: space).count == 8, "nothing was written")
        try await fixture.unlock(collection, passcode)
        #expect(try await fixture.service.compact(collection) > 0)
        let after = try await fixture.parsedRecords(of: space)
        #expect(after.count == 5, "collection, items 1 and 3, the deletion holding the highest number, the newest one")
        #expect(after.compactMap(\.link?.sequence) == Array(9...13), "numbered on from the old chain")

        let restarted = try await fixture.restarted()
        try await restarted.unlock(collection, passcode)
        try await Self.expectItems(restarted, [items[0]: "v1-b", items[2]: "v3"], in: collection)
        #expect(await restarted.service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        #expect(try await restarted.service.collectionInfo(collection).modified == 1_700_000_060)
        let next = try await Self.put(restarted, "5", "v5", in: collection, session: try await restarted.plainSession())
        #expect(next.number == 5, "a deleted number is not handed out again")
    }

    @Test(arguments: [1, 300])
    func compactionStartsOnItsOwnOnceDeadRecordsOutnumberLiveOnesAndTwoHundredFiftySix(liveItems: Int) async throws {
        let first = try await Fixture.persistent()
        let session = try await first.plainSession()
        var live: [ItemID: String] = [:]
        for number in 1...liveItems {
            live[try await Self.put(first, "\(number)", "v\(number)", session: session)] = "v\(number)"
        }
        let threshold = max(liveItems, 256)
        for round in 1...threshold { _ = try await Self.put(first, "1", "round \(round)", session: session) }
        let space = try await first.space(of: .login)
        #expect(await first.storage.records(of: space).count == 1 + liveItems + threshold, "not yet worth it")

        live[try await Self.put(first, "1", "last", session: session)] = "last"
        #expect(await first.storage.records(of: space).count == 1 + liveItems, "compacted")
        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "correct horse")
        try await Self.expectItems(fixture, live)
    }

    @Test func deadRecordsCountedBeforeARestartStillCountAfterTheUnlock() async throws {
        let first = try await Fixture.persistent()
        let session = try await first.plainSession()
        for round in 0...200 { _ = try await Self.put(first, "1", "round \(round)", session: session) }
        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "correct horse")
        let again = try await fixture.plainSession()
        for round in 201...256 { _ = try await Self.put(fixture, "1", "round \(round)", session: again) }
        let space = try await fixture.space(of: .login)
        #expect(await fixture.storage.records(of: space).count == 258, "256 dead: not yet worth it")
        let item = try await Self.put(fixture, "1", "last", session: again)
        #expect(await fixture.storage.records(of: space).count == 2, "257 dead, 200 of them from before the restart")
        try await Self.expectItems(fixture, [item: "last"])
    }

    @Test func aDeletionThatSetsOffCompactionStaysDeleted() async throws {
        let first = try await Fixture.persistent()
        let session = try await first.plainSession()
        let kept = try await Self.put(first, "kept", "v", session: session)
        let doomed = try await Self.put(first, "doomed", "w", session: session)
        for round in 1...256 { _ = try await Self.put(first, "kept", "round \(round)", session: session) }
        try await first.service.deleteItem(doomed)
        let space = try await first.space(of: .login)
        #expect(await first.storage.records(of: space).count == 3, "compacted: collection, kept, the deletion")

        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "correct horse")
        try await Self.expectItems(fixture, [kept: "round 256"])
        #expect(try await Self.put(fixture, "new", "x", session: try await fixture.plainSession()).number == 3)
    }

    @Test func aRenameThatSetsOffCompactionIsKept() async throws {
        let first = try await Fixture.persistent()
        for round in 1...257 { try await first.service.setLabel("Label \(round)", of: .login) }
        let space = try await first.space(of: .login)
        #expect(await first.storage.records(of: space).count == 1, "compacted down to one collection record")
        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "correct horse")
        #expect(try await fixture.service.collectionInfo(.login).label == "Label 257")
    }
}
