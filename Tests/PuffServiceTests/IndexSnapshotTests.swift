// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// `<space>.index` (design core-reshaped §4.2): a start reads it and the journal's records after
/// it instead of the whole journal, and finds the same locked view; a snapshot that does not fit
/// (attacker F plants or changes it, T brings an old one) is ignored and the journal read whole.
@Suite struct IndexSnapshotTests {
    static let client = ClientID(":1.31")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-index-\(UUID().uuidString)")

    /// A service over the vault, its store counting whole-journal reads; `holdingChecks`: puffd's
    /// start (``VaultLoading/later``), with the check of the journal after the snapshot held.
    func service(holdingChecks: Bool = false) async throws -> (SecretService, HoldingRecordStore) {
        let store = HoldingRecordStore(try await FileRecordStore.reopening(folder: folder.path))
        if holdingChecks { store.holdChecks() }
        let service = try await SecretService(
            store: store, mode: .persistent(kdf: .interactive), prompter: ScriptedPrompter([]),
            promptTimeout: .seconds(30), clock: ManualClock(), now: { 1_700_000_000 },
            logger: InMemoryLogHandler.logger(store: .init()), events: { _ in }, loading: holdingChecks ? .later : .now)
        if holdingChecks {
            try await service.loadVault()
            await service.becomeReady()
        }
        return (service, store)
    }

    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key, "shared": "yes"], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: Self.client)
    }

    /// What a locked `login` shows: its items, and the locked hits of each query.
    func lockedView(_ service: SecretService) async throws -> [String] {
        var view = ["items " + (await service.itemIDs(in: .login)).map { "\($0.number)" }.joined(separator: ",")]
        for query: Attributes in [["shared": "yes"], ["k": "a"], ["k": "b"], ["k": "c"], ["k": "d"], ["k": "e"]] {
            let found = try await service.searchItems(query)
            #expect(found.unlocked.isEmpty)
            view.append("\(query) " + found.locked.map { "\($0.number)" }.joined(separator: ","))
        }
        return view
    }

    /// `login`'s files in the vault folder.
    func file(_ suffix: String) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let login = try names.filter { $0.hasSuffix(".header") }.first { name in
            try Data(contentsOf: folder.appendingPathComponent(name)).range(of: Data("login".utf8)) != nil
        }
        return folder.appendingPathComponent(String(try #require(login).dropLast(7)) + suffix)
    }

    /// A vault whose `login` holds a, b (secret changed), c; d deleted; its snapshot written.
    func vaultWithSnapshot() async throws {
        let (service, _) = try await service()
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        try await store("a", "1", in: service)
        try await store("b", "old", in: service)
        try await store("b", "new", in: service)
        let d = try await store("d", "4", in: service)
        try await store("c", "3", in: service)
        try await service.deleteItem(d)
        await service.saveIndexSnapshots()
        #expect(FileManager.default.fileExists(atPath: try file(".index").path))
    }

    /// The locked view a start finds with no snapshot, and how many journals it read whole.
    func viewWithoutSnapshot() async throws -> [String] {
        let index = try file(".index")
        let kept = try Data(contentsOf: index)
        try FileManager.default.removeItem(at: index)
        defer { try? kept.write(to: index) }
        let (service, store) = try await service()
        #expect(store.wholeReplays == 1)
        return try await lockedView(service)
    }

    @Test func aStartReadsTheSnapshotInsteadOfTheJournalAndSeesTheSameLockedView() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        let expected = try await viewWithoutSnapshot()
        let (service, store) = try await service()
        #expect(store.wholeReplays == 0, "the journal was not read whole")
        #expect(try await lockedView(service) == expected)
        #expect(expected[0] == "items 1,2,4", "a, b and c")
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let b = try await service.secret(
            of: ItemID(collection: .login, number: 2), session: session.session, caller: Caller(Self.client))
        #expect(b.value.unprotectedArray() == Array("new".utf8))
    }

    @Test func recordsWrittenAfterTheSnapshotAreReadFromItsEndOnly() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        do {
            let (service, _) = try await service()
            _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
            try await store("e", "5", in: service)  // new
            try await store("a", "changed", in: service)  // replaces one the snapshot has
            try await service.deleteItem(ItemID(collection: .login, number: 4))  // deletes one it has
        }
        let expected = try await viewWithoutSnapshot()
        let (service, store) = try await service()
        #expect(store.wholeReplays == 0, "only the records after the snapshot were read")
        #expect(try await lockedView(service) == expected)
        #expect(expected[0] == "items 1,2,5", "a (changed), b, e")
    }

    enum Plant: String, CaseIterable {
        case truncated, garbage, longerThanJournal, otherRecordAtItsEnd, symlink, fifo
    }

    @Test(arguments: Plant.allCases)
    func aSnapshotThatDoesNotFitIsIgnoredAndNothingIsLost(_ plant: Plant) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        let expected = try await viewWithoutSnapshot()
        let index = try file(".index")
        let bytes = [UInt8](try Data(contentsOf: index))
        let snapshot = try #require(IndexSnapshot(decoding: bytes))
        try FileManager.default.removeItem(at: index)
        switch plant {
        case .truncated:
            try Data(bytes.dropLast(40)).write(to: index)
        case .garbage:
            try Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: index)
        case .longerThanJournal:
            var changed = snapshot
            changed.journalLength += 64  // re-encoded: its checksum is no secret
            try Data(changed.encoded()).write(to: index)
        case .otherRecordAtItsEnd:
            var changed = snapshot
            changed.lastTag = [UInt8](repeating: 7, count: changed.lastTag.count)
            try Data(changed.encoded()).write(to: index)
        case .symlink:
            let elsewhere = folder.appendingPathComponent("elsewhere")
            try Data(bytes).write(to: elsewhere)
            try FileManager.default.createSymbolicLink(at: index, withDestinationURL: elsewhere)
        case .fifo:
            #expect(mkfifo(index.path, 0o600) == 0)
        }
        let (service, store) = try await service()
        #expect(store.wholeReplays == 1, "the journal was read whole")
        #expect(try await lockedView(service) == expected)
    }

    @Test func aFlippedByteInTheJournalItCoversIsReportedWhileLockedAsWithoutOne() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        let journal = try file(".journal")
        var bytes = [UInt8](try Data(contentsOf: journal))
        let parsed = try JournalFraming.parse(bytes, file: "journal")
        let second = Int(parsed.records[1].offset)
        bytes[second + 40] ^= 0x01
        try Data(bytes).write(to: journal)
        let (service, store) = try await service()
        #expect(store.wholeReplays == 1, "the journal was read whole")
        let damage = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(damage.contains("is damaged at offset \(second)"), "\(damage)")
    }

    @Test func aStartAnswersFromTheSnapshotFirstAndReportsAFlippedByteOnceTheJournalIsChecked() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        let journal = try file(".journal")
        var bytes = [UInt8](try Data(contentsOf: journal))
        let parsed = try JournalFraming.parse(bytes, file: "journal")
        // Inside item a's record (the collection's is first).
        let a = Int(parsed.records[1].offset)
        bytes[a + 40] ^= 0x01
        try Data(bytes).write(to: journal)
        let (service, store) = try await service(holdingChecks: true)
        try #require(await service.checksJournals, "the part the snapshot covers is left to check")
        try #require(await poll(limit: HangGuard.step) { store.isHoldingCheck }, "the hold was reached")
        #expect(try await service.searchItems(["k": "a"]).locked.map(\.number) == [1], "answered from the snapshot")
        #expect(store.wholeReplays == 0)
        store.releaseChecks()
        await service.journalsChecked()
        #expect(store.frameChecks == 1)
        #expect(store.wholeReplays == 1, "the journal was read whole once a frame failed")
        let damage = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(damage.contains("is damaged at offset \(a)"), "\(damage)")
        #expect(try await service.searchItems(["k": "a"]).locked.isEmpty, "what the whole scan finds")
        #expect(try await service.searchItems(["k": "c"]).locked.map(\.number) == [4])
    }

    @Test func aSnapshotNamingItemsThatHaveNoRecordMakesNoItem() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await vaultWithSnapshot()
        let index = try file(".index")
        var snapshot = try #require(IndexSnapshot(decoding: [UInt8](try Data(contentsOf: index))))
        // 99 is in the item list and under every key; 98 only under the keys.
        snapshot.items.append(99)
        if let first = snapshot.located.locators.first { snapshot.located.locators.append(first) }
        snapshot.keys = FlatIndex(keys: snapshot.keys.entries.map { ($0.digest, $0.numbers + [98, 99]) })
        try Data(snapshot.encoded()).write(to: index)
        let (service, store) = try await service()
        #expect(store.wholeReplays == 0)
        let locked = try await service.searchItems(["shared": "yes"]).locked.map(\.number)
        #expect(!locked.contains(98), "a number no item holds is no hit")
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(await service.itemIDs(in: .login).map(\.number) == [1, 2, 4], "unlocking reads the records")
        #expect(try await service.searchItems(["shared": "yes"]).unlocked.map(\.number) == [1, 2, 4])
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let phantom = await serviceError { () async throws(ServiceError) in
            try await service.secret(
                of: ItemID(collection: .login, number: 99), session: session.session, caller: Caller(Self.client))
        }
        #expect(phantom == .noSuchObject)
    }
}
