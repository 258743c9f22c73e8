// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// An index snapshot's locators and index count at an unlock only under its seal (design
/// core-reshaped §4.4). Attacker F plants or alters `<space>.index`: the unlock then reads the
/// journal, so no item's secret comes from another item's record or an older record of its own.
@Suite struct SnapshotSealTests {
    static let client = ClientID(":1.51")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-seal-\(UUID().uuidString)")

    func service() async throws -> (SecretService, HoldingRecordStore) {
        let store = HoldingRecordStore(try await FileRecordStore.reopening(folder: folder.path))
        let service = try await SecretService(
            store: store, mode: .persistent(kdf: .interactive), prompter: ScriptedPrompter([]),
            promptTimeout: .seconds(30), clock: ManualClock(), now: { 1_700_000_000 },
            logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
        return (service, store)
    }

    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: Self.client)
    }

    func secret(of id: ItemID, in service: SecretService) async throws -> String {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let secret = try await service.secret(of: id, session: session.session, caller: Caller(Self.client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    /// `login`'s file ending in `suffix`.
    func file(_ suffix: String) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let login = try names.filter { $0.hasSuffix(".header") }.first { name in
            try Data(contentsOf: folder.appendingPathComponent(name)).range(of: Data("login".utf8)) != nil
        }
        return folder.appendingPathComponent(String(try #require(login).dropLast(7)) + suffix)
    }

    /// `login` holds a "one", b ("old", then "new") and c "two"; a clean stop's sealed snapshot.
    func vault() async throws -> (a: ItemID, b: ItemID, c: ItemID) {
        let (service, _) = try await service()
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let a = try await store("a", "one", in: service)
        let b = try await store("b", "old", in: service)
        try await store("b", "new", in: service)
        let c = try await store("c", "two", in: service)
        await service.saveIndexSnapshots()
        return (a, b, c)
    }

    /// The locator of item `number`'s oldest record in the journal, with its sequence.
    func oldestLocator(of number: UInt64) throws -> RecordLocator {
        let bytes = [UInt8](try Data(contentsOf: try file(".journal")))
        for stored in try JournalFraming.parse(bytes, file: "journal").records {
            let record = try VaultRecord(decoding: stored.bytes, format: VaultRecord.currentFormat)
            if record.kind == .item, record.number == number {
                return RecordLocator(offset: stored.offset, record: stored.bytes, sequence: record.link?.sequence)
            }
        }
        throw CancellationError()
    }

    /// Rewrites the snapshot with `change`, keeping its seal's bytes as they were.
    func plant(_ change: (inout IndexSnapshot) throws -> Void) throws {
        let index = try file(".index")
        var snapshot = try #require(IndexSnapshot(decoding: [UInt8](try Data(contentsOf: index))))
        #expect(snapshot.seal != nil, "a clean stop while unlocked seals the snapshot")
        try change(&snapshot)
        try Data(snapshot.encoded()).write(to: index)
    }

    @Test func theSealedSnapshotOfACleanStopLetsTheUnlockReadNoJournal() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, b, c) = try await vault()
        let (service, store) = try await service()
        try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(store.wholeReplays == 0, "the unlock read the journal")
        #expect(try await secret(of: a, in: service) == "one")
        #expect(try await secret(of: b, in: service) == "new")
        #expect(try await secret(of: c, in: service) == "two")
    }

    @Test func aSnapshotPointingAnItemAtItsOlderRecordDoesNotRollItsSecretBack() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, b, _) = try await vault()
        let older = try oldestLocator(of: b.number)
        try plant { snapshot in
            let position = try #require(snapshot.items.firstIndex(of: b.number))
            snapshot.located.locators[position] = older
        }
        let (service, store) = try await service()
        try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(store.wholeReplays == 1, "an altered snapshot is not trusted at the unlock")
        #expect(try await secret(of: b, in: service) == "new")
    }

    @Test func aSnapshotSwappingTwoItemsLocatorsDoesNotSwapTheirSecrets() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, _, c) = try await vault()
        try plant { snapshot in
            let first = try #require(snapshot.items.firstIndex(of: a.number))
            let last = try #require(snapshot.items.firstIndex(of: c.number))
            snapshot.located.locators.swapAt(first, last)
        }
        let (service, _) = try await service()
        try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(try await secret(of: a, in: service) == "one")
        #expect(try await secret(of: c, in: service) == "two")
    }

    @Test func aSnapshotWithItsSealTakenOffIsReadLikeOneWrittenWhileLocked() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, b, _) = try await vault()
        let older = try oldestLocator(of: b.number)
        try plant { snapshot in
            let position = try #require(snapshot.items.firstIndex(of: b.number))
            snapshot.located.locators[position] = older
            snapshot.seal = nil
        }
        let (service, store) = try await service()
        try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(store.wholeReplays == 1)
        #expect(try await secret(of: b, in: service) == "new")
    }
}
