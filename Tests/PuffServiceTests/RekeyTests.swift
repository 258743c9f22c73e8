// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// `passwd` re-keys (issue 24 item 5): a thief who kept the header from before the change, or a
/// process that once read the key from the kernel keyring, opens nothing of the collection as it
/// is afterwards; the new passcode opens everything, audit entries included.
@Suite struct RekeyTests {
    /// How many records of every space of `storage` open under `master`, tried both as records
    /// of the space they sit in and of `oldSpace` (where the key came from).
    static func recordsOpened(by master: MasterKey, oldSpace: SpaceID, in storage: any RecordStore) async throws
        -> Int
    {
        let sealer = try SecretSealer(key: master.subkey(.records))
        var opened = 0
        for space in try await storage.spaces() {
            for bytes in await storage.records(of: space) {
                let record = try VaultRecord(decoding: bytes)
                if (try? record.open(space: space, sealer: sealer)) != nil
                    || (try? record.open(space: oldSpace, sealer: sealer)) != nil
                {
                    opened += 1
                }
            }
        }
        return opened
    }

    /// The master key a copy of `header` gives whoever knows `passcode`.
    static func master(from header: VaultHeader, passcode: String) throws -> MasterKey {
        try HeaderKeys.master(header, passcode: passcode)
    }

    @Test func anOldHeaderCopyAndTheOldPasscodeOpenNothingWrittenAfterTheChange() async throws {
        let fixture = try await Fixture.persistent()
        let before = try await fixture.store(["name": "before"], secret: "written before")
        let oldSpace = try await fixture.space(of: .login)
        // The thief's copy, taken before the change.
        let stolen = try await fixture.header(of: oldSpace)
        let stolenKey = try Self.master(from: stolen, passcode: "correct horse")
        #expect(
            try await Self.recordsOpened(by: stolenKey, oldSpace: oldSpace, in: fixture.storage) == 2,
            "the copy opens the collection record and the item as they were")

        try await fixture.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        let after = try await fixture.store(["name": "after"], secret: "written after")
        let records = await fixture.storage.records(of: try await fixture.space(of: .login))
        #expect(records.count == 3)
        #expect(
            try await Self.recordsOpened(by: stolenKey, oldSpace: oldSpace, in: fixture.storage) == 0,
            "the old header and passcode open no record of the files as they are now")

        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "battery staple")
        #expect(try await restarted.holds(before, "written before"))
        #expect(try await restarted.holds(after, "written after"))
    }

    @Test func theKeyringsCopyOfTheOldKeyIsRevokedAndOpensNothingNew() async throws {
        let keeper = RecordingKeeper()
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive), keyKeeper: keeper)
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let item = try await fixture.store(["name": "before"], secret: "written before")
        let oldSpace = try await fixture.space(of: .login)
        // What a process of the user read from the keyring while `login` was unlocked.
        let leaked = try #require(keeper.key(for: oldSpace))

        try await fixture.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        _ = try await fixture.store(["name": "after"], secret: "written after")
        let newSpace = try await fixture.space(of: .login)
        #expect(keeper.key(for: oldSpace) == nil, "the old key's copy is revoked")
        #expect(keeper.forgotten.contains(oldSpace))
        let kept = try #require(keeper.key(for: newSpace), "the collection stays unlocked, its new key kept")
        #expect(try await Self.recordsOpened(by: leaked, oldSpace: oldSpace, in: fixture.storage) == 0)
        #expect(try await Self.recordsOpened(by: kept, oldSpace: newSpace, in: fixture.storage) == 3)

        // A restart unlocks with the kept new key, as before the change.
        let restarted = try await Fixture(
            storage: fixture.storage, audit: fixture.audit, mode: .persistent(kdf: .interactive), keyKeeper: keeper)
        #expect(try await restarted.service.collectionInfo(.login).isLocked == false)
        #expect(try await restarted.holds(item, "written before"))
    }

    @Test func auditEntriesWrittenBeforeTheChangeStillReadAndTheOldLogIsGone() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["name": "audited"], secret: "s")
        _ = try await fixture.read(item)
        let oldSpace = try await fixture.space(of: .login)
        let before = try await fixture.service.auditEntries(collection: .login)
        #expect(before.entries.count == 2, "the creation and the read")

        try await fixture.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        _ = try await fixture.read(item)
        #expect(try fixture.audit.entries(of: oldSpace).records.isEmpty, "the log under the old key is removed")

        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "battery staple")
        let after = try await restarted.service.auditEntries(collection: .login)
        #expect(after.problems.isEmpty, "every entry opens under the new key, in order, none missing")
        #expect(after.entries.map(\.sequence) == [1, 2, 3])
        #expect(after.entries.prefix(2).map(\.action) == before.entries.map(\.action))
    }

    @Test func callsDuringARekeyAreServedAndWritesWaitThenLandUnderTheNewKey() async throws {
        let fixture = try await Fixture.persistent()
        let item = try await fixture.store(["name": "first"], secret: "first secret")
        let oldSpace = try await fixture.space(of: .login)
        let stolenKey = try Self.master(from: try await fixture.header(of: oldSpace), passcode: "correct horse")

        // The re-key stops at its switch, the first write it makes.
        await fixture.storage.holdNextWrite()
        let change = Task {
            try await fixture.service.changePasscode(
                of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        }
        await fixture.storage.waitUntilHolding()
        #expect(try await fixture.holds(item, "first secret"), "a read is served during the re-key")
        let created = Task { try await fixture.store(["name": "during"], secret: "created during") }
        #expect(await poll(limit: HangGuard.step) { await fixture.service.writersWaiting == 1 })
        let session = try await fixture.plainSession()
        let changed = Task {
            try await fixture.service.setSecret(
                Fixture.plain(Array("changed during".utf8), session: session), of: item, client: Fixture.alice)
        }
        #expect(await poll(limit: HangGuard.step) { await fixture.service.writersWaiting == 2 })
        await fixture.storage.releaseHeldWrite()
        try await change.value
        let during = try await created.value
        try await changed.value

        #expect(try await Self.recordsOpened(by: stolenKey, oldSpace: oldSpace, in: fixture.storage) == 0)
        let restarted = try await fixture.restarted()
        try await restarted.unlock(.login, "battery staple")
        #expect(try await restarted.holds(during, "created during"))
        #expect(try await restarted.holds(item, "changed during"))
    }

    @Test(arguments: [VaultHeader.LockedSearch.always, .afterUnlock])
    func theLockedSearchModeAndItsIndexFollowTheRekey(mode: VaultHeader.LockedSearch) async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.service.createCollection(
            label: "Work", passcode: Fixture.passcode("old pass"), isPrivate: false, isHidden: false,
            lockedSearch: mode)
        let item = try await fixture.store(["host": "example.org"], secret: "s", in: work)
        try await fixture.service.lock([work])
        #expect(try await fixture.service.searchItems(["host": "example.org"]).locked == [item], "before")

        try await fixture.service.changePasscode(
            of: work, old: Fixture.passcode("old pass"), new: Fixture.passcode("new pass"))
        let header = try await fixture.header(of: try await fixture.space(of: work))
        #expect(header.lockedSearch == mode)
        #expect((header.indexKey != nil) == (mode == .always))
        #expect(try await fixture.service.collectionInfo(work).isLocked, "changing it does not unlock it")
        #expect(
            try await fixture.service.searchItems(["host": "example.org"]).locked == [item],
            "a locked collection is still found as its mode says")

        let restarted = try await fixture.restarted()
        let found = try await restarted.service.searchItems(["host": "example.org"]).locked
        #expect(found == (mode == .always ? [item] : []), "after a restart, as the mode says")
        try await restarted.unlock(work, "new pass")
        #expect(try await restarted.service.searchItems(["host": "example.org"]).unlocked == [item])
        #expect(try await restarted.holds(item, "s"))
    }

    @Test func aDamagedJournalIsNotRekeyedAndKeepsItsPasscode() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.store(["name": "one"])
        try await fixture.store(["name": "two"])
        let space = try await fixture.space(of: .login)
        var records = await fixture.storage.records(of: space)
        records.remove(at: 1)
        try await fixture.storage.tamper(space, records: records)
        let restarted = try await fixture.restarted()
        let error = await serviceError { () async throws(ServiceError) in
            try await restarted.service.changePasscode(
                of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        }
        guard case .damaged(let reason)? = error else {
            Issue.record("expected damage, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("puffctl repair"))
        #expect(try await restarted.storage.spaces() == [space], "nothing written")
        try await restarted.unlock(.login, "correct horse")
    }
}

/// An ``UnlockedKeyKeeper`` in memory that remembers what it was told to forget.
final class RecordingKeeper: UnlockedKeyKeeper {
    private let state = Mutex<(keys: [SpaceID: MasterKey], forgotten: [SpaceID])>(([:], []))

    var forgotten: [SpaceID] { state.withLock { $0.forgotten } }

    func keep(_ key: MasterKey, for space: SpaceID) {
        state.withLock { $0.keys[space] = key }
    }

    func key(for space: SpaceID) -> MasterKey? {
        state.withLock { $0.keys[space] }
    }

    func forget(_ space: SpaceID) {
        state.withLock {
            $0.keys[space] = nil
            $0.forgotten.append(space)
        }
    }
}
