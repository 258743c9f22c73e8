// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// What unlocking a large collection costs (issue 27 item 1, design §2): with records that carry
/// their blind index tags (locked search `always`, the default), an unlock reads no journal record
/// and seals nothing; items open when touched.
@Suite struct UnlockCostTests {
    static let items = 10_000

    /// A persistent vault whose `login` holds ``items`` items, restarted over a store that counts
    /// the journal records it hands out.
    func filledAndRestarted() async throws -> (Fixture, CountingRecordStore, [ItemID]) {
        let storage = MemoryRecordStore()
        let filling = try await Fixture.persistent(passcode: "one pass", storage: storage)
        var made: [ItemID] = []
        for number in 0..<Self.items {
            made.append(try await filling.store(["service": "s\(number)", "user": "u"], secret: "secret \(number)"))
        }
        let counting = CountingRecordStore(storage)
        let restarted = try await Fixture(storage: storage, mode: .persistent(kdf: .interactive), counting: counting)
        await counting.reset()
        return (restarted, counting, made)
    }

    @Test func unlockingTenThousandTaggedItemsReadsNoRecordAndSealsNothing() async throws {
        let (fixture, counting, items) = try await filledAndRestarted()
        try await fixture.service.unlock(.login, passcode: Fixture.passcode("one pass"))

        #expect(await counting.replays == 0, "the unlock read the journal")
        #expect(await counting.recordsRead == 0, "the unlock read records from the store")
        let forms = await fixture.service.itemForms(in: .login)
        #expect(forms.sealedApart == 0, "items sealed a second time for memory: \(forms.sealedApart)")
        #expect(await fixture.service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })

        // Touched items open from their records.
        let session = try await fixture.plainSession()
        let secret = try await fixture.service.secret(
            of: items[4_321], session: session, caller: Caller(Fixture.alice))
        #expect(secret.value.unprotectedArray() == Array("secret 4321".utf8))
        #expect(try await fixture.service.searchItems(["service": "s77"]).unlocked == [items[77]])
        #expect(try await fixture.service.itemInfo(items[77]).attributes == ["service": "s77", "user": "u"])
        #expect(await counting.recordsRead == 0)
    }

    @Test func writtenAndTouchedItemsDoNotStayOpenedBeyondTheCachesBound() async throws {
        let storage = MemoryRecordStore()
        let filling = try await Fixture.persistent(passcode: "one pass", storage: storage)
        var made: [ItemID] = []
        for number in 0..<5_000 {
            made.append(try await filling.store(["service": "s\(number)"], secret: "secret \(number)"))
        }
        let afterFill = await filling.service.itemForms(in: .login).opened
        #expect(afterFill <= 4_096, "\(afterFill) items written stay opened")
        for id in made { _ = try await filling.service.itemInfo(id) }
        let afterReads = await filling.service.itemForms(in: .login).opened
        #expect(afterReads <= 4_096, "\(afterReads) items read stay opened")
        // A closed item opens again from its record when touched.
        #expect(try await filling.service.itemInfo(made[0]).attributes == ["service": "s0"])
        let session = try await filling.plainSession()
        let secret = try await filling.service.secret(of: made[1], session: session, caller: Caller(Fixture.alice))
        #expect(secret.value.unprotectedArray() == Array("secret 1".utf8))
    }

    @Test func aWriteAfterTheUnlockKeepsItsRecordAsTheOnlySealedFormAndLockThenUnlockReadsNothing() async throws {
        let (fixture, counting, items) = try await filledAndRestarted()
        try await fixture.service.unlock(.login, passcode: Fixture.passcode("one pass"))
        let added = try await fixture.store(["service": "new"], secret: "fresh")
        try await fixture.service.setLabel("renamed", of: items[0])
        #expect(await fixture.service.itemForms(in: .login).sealedApart == 0)

        try await fixture.service.lock([.login])
        try await fixture.service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(await counting.replays == 0, "a lock and unlock read the journal")
        let session = try await fixture.plainSession()
        let secret = try await fixture.service.secret(of: added, session: session, caller: Caller(Fixture.alice))
        #expect(secret.value.unprotectedArray() == Array("fresh".utf8))
        #expect(try await fixture.service.itemInfo(items[0]).label == "renamed")
    }
}

/// The first unlock after a clean restart, through the index snapshot the clean stop wrote
/// (design core-reshaped §4.4): the snapshot's sealed locators stand in for the journal's records.
@Suite struct SnapshotUnlockCostTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-unlockcost-\(UUID().uuidString)")

    func service(over store: any RecordStore) async throws -> SecretService {
        try await SecretService(
            store: store, mode: .persistent(kdf: .interactive), prompter: ScriptedPrompter([]),
            promptTimeout: .seconds(30), clock: ManualClock(), now: { 1_700_000_000 },
            logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    /// A file store whose flushes do nothing: the test is about reads.
    func files() async throws -> FileRecordStore {
        try FileRecordStore(folder: folder.path, sync: { _, _ in 0 })
    }

    @Test func unlockingTenThousandItemsAfterACleanRestartReadsNoRecord() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var made: [ItemID] = []
        do {
            let filling = try await service(over: try await files())
            try await filling.initialize(passcode: Fixture.passcode("one pass"))
            let session = try await filling.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
            for number in 0..<UnlockCostTests.items {
                made.append(
                    try await filling.createItem(
                        in: .login, label: "item \(number)", attributes: ["service": "s\(number)", "user": "u"],
                        type: "", secret: Fixture.plain(Array("secret \(number)".utf8), session: session.session),
                        replace: false, client: Fixture.alice))
            }
            await filling.saveIndexSnapshots()  // as puffd does at a clean stop
        }
        let counting = CountingRecordStore(try await FileRecordStore.reopening(folder: folder.path))
        let restarted = try await service(over: counting)
        #expect(await counting.replays == 0, "the start read the journal whole instead of the snapshot")
        await counting.reset()
        try await restarted.unlock(.login, passcode: Fixture.passcode("one pass"))

        let read = await counting.recordsRead
        #expect(read == 0, "the unlock read \(read) records")
        #expect(counting.locatedReads == 0, "the unlock read item records by their locators")
        #expect(await restarted.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        let session = try await restarted.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        let secret = try await restarted.secret(
            of: made[4_321], session: session.session, caller: Caller(Fixture.alice))
        #expect(secret.value.unprotectedArray() == Array("secret 4321".utf8))
        #expect(try await restarted.searchItems(["service": "s77"]).unlocked == [made[77]])
        #expect(try await restarted.itemInfo(made[77]).label == "item 77")
    }
}
