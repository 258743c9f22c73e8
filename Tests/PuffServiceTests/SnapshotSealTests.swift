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
    let vault = JournalVault("seal", client: ":1.51")

    /// A service over the vault, with the store that counts its whole replays.
    func service() async throws -> (SecretService, HoldingRecordStore) {
        var holding: HoldingRecordStore?
        let service = try await vault.service(at: vault.folder) { store in
            let wrapped = HoldingRecordStore(store)
            holding = wrapped
            return wrapped
        }
        return (service, try #require(holding))
    }

    /// `login`'s file ending in `suffix`.
    func file(_ suffix: String) throws -> URL {
        try vault.loginFile(suffix, at: vault.folder)
    }

    /// `login` holds a "one", b ("old", then "new") and c "two"; a clean stop's sealed snapshot.
    func vault() async throws -> (a: ItemID, b: ItemID, c: ItemID) {
        let (service, _) = try await service()
        try await service.initialize(passcode: Fixture.passcode(JournalVault.passcode))
        let a = try await vault.store("a", "one", in: service)
        let b = try await vault.store("b", "old", in: service)
        try await vault.store("b", "new", in: service)
        let c = try await vault.store("c", "two", in: service)
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
        defer { vault.remove() }
        let (a, b, c) = try await vault()
        let (service, store) = try await service()
        try await vault.unlock(service)
        #expect(store.wholeReplays == 0, "the unlock read the journal")
        #expect(try await vault.read(a, in: service) == "one")
        #expect(try await vault.read(b, in: service) == "new")
        #expect(try await vault.read(c, in: service) == "two")
    }

    @Test func aSnapshotPointingAnItemAtItsOlderRecordDoesNotRollItsSecretBack() async throws {
        defer { vault.remove() }
        let (_, b, _) = try await vault()
        let older = try oldestLocator(of: b.number)
        try plant { snapshot in
            let position = try #require(snapshot.items.firstIndex(of: b.number))
            snapshot.located.locators[position] = older
        }
        let (service, store) = try await service()
        try await vault.unlock(service)
        #expect(store.wholeReplays == 1, "an altered snapshot is not trusted at the unlock")
        #expect(try await vault.read(b, in: service) == "new")
    }

    @Test func aSnapshotSwappingTwoItemsLocatorsDoesNotSwapTheirSecrets() async throws {
        defer { vault.remove() }
        let (a, _, c) = try await vault()
        try plant { snapshot in
            let first = try #require(snapshot.items.firstIndex(of: a.number))
            let last = try #require(snapshot.items.firstIndex(of: c.number))
            snapshot.located.locators.swapAt(first, last)
        }
        let (service, _) = try await service()
        try await vault.unlock(service)
        #expect(try await vault.read(a, in: service) == "one")
        #expect(try await vault.read(c, in: service) == "two")
    }

    @Test func aSnapshotWithItsSealTakenOffIsReadLikeOneWrittenWhileLocked() async throws {
        defer { vault.remove() }
        let (_, b, _) = try await vault()
        let older = try oldestLocator(of: b.number)
        try plant { snapshot in
            let position = try #require(snapshot.items.firstIndex(of: b.number))
            snapshot.located.locators[position] = older
            snapshot.seal = nil
        }
        let (service, store) = try await service()
        try await vault.unlock(service)
        #expect(store.wholeReplays == 1)
        #expect(try await vault.read(b, in: service) == "new")
    }
}
