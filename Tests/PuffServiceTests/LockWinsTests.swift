// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffFormats
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A `Lock` that comes while an unlock is under way wins (a person who locks, or whose screen
/// locks, expects everything locked afterwards): that unlock's keys go unused and it answers
/// `NotConfirmed`; an unlock begun after the Lock opens as any other. The unlock is held in its
/// journal read (a private collection reads its journal at every unlock).
@Suite struct LockWinsTests {
    static let refused = ServiceError.notConfirmed("the collection was locked again while this unlock was under way")

    /// How the person locks: Secret Service `Lock`, `puffctl lock`, or every collection at once
    /// (screen lock, suspend).
    enum LockKind: CaseIterable { case secretService, puffctl, all }

    /// A persistent vault whose journal reads can be held, with a private `Diary` holding one
    /// item, locked.
    static func lockedDiary() async throws -> (Fixture, HoldingRecordStore, CollectionID, ItemID) {
        let holding = HoldingRecordStore(MemoryRecordStore())
        let fixture = try await Fixture.persistent(storage: holding)
        let diary = try await fixture.makeCollection("Diary", passcode: "diary pass", isPrivate: true)
        let item = try await fixture.store(["app": "diary"], secret: "dear diary", in: diary)
        try await fixture.service.lock([diary])
        return (fixture, holding, diary, item)
    }

    static func lock(_ diary: CollectionID, _ kind: LockKind, _ service: SecretService) async throws {
        switch kind {
        case .secretService: _ = await service.lock([Fixture.reference(diary)], client: Fixture.alice)
        case .puffctl: try await service.lock([diary])
        case .all: await service.lockAll(reason: .signal)
        }
    }

    @Test(arguments: LockKind.allCases)
    func aLockWhileAnUnlockReadsTheJournalLeavesTheCollectionLockedAndRefusesThatUnlock(kind: LockKind)
        async throws
    {
        let (fixture, holding, diary, item) = try await Self.lockedDiary()
        let service = fixture.service
        let session = try await fixture.plainSession()
        holding.holdReplays()
        let unlocking = Task {
            await serviceError { () async throws(ServiceError) in try await fixture.unlock(diary, "diary pass") }
        }
        try #require(await poll(limit: HangGuard.step) { holding.replaysHolding > 0 }, "the hold was reached")
        try await Self.lock(diary, kind, service)
        #expect(try await service.collectionInfo(diary).isLocked)
        holding.releaseReplays()

        #expect(await unlocking.value == Self.refused)
        #expect(try await service.collectionInfo(diary).isLocked, "the Lock won")
        #expect(service.readView.secrets(of: [item], session: session, caller: Caller(Fixture.alice)) == nil)
        #expect(await service.unlocksUnderWay(of: diary) == 0)
        #expect(fixture.logs.lines.contains { $0.contains("An unlock was refused") && $0.contains("Diary") })

        // An unlock begun after the Lock opens as any other.
        try await fixture.unlock(diary, "diary pass")
        #expect(try await fixture.read(item) == "dear diary")
    }

    /// libsecret and secretstorage see the refused unlock as a dismissed prompt (secret-service.md
    /// §6.11: `Completed(true, <@ao []>)`).
    @Test func anUnlockPromptWhoseUnlockALockOvertookEndsDismissed() async throws {
        let holding = HoldingRecordStore(MemoryRecordStore())
        let fixture = try await Fixture(
            script: [.reply(.passcode(Fixture.passcode("diary pass")))], storage: holding,
            mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let diary = try await fixture.makeCollection("Diary", passcode: "diary pass", isPrivate: true)
        try await fixture.service.lock([diary])
        let asked = try await fixture.service.unlock([Fixture.reference(diary)], client: Fixture.alice)
        let prompt = try #require(asked.prompt)
        holding.holdReplays()
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        try #require(await poll(limit: HangGuard.step) { holding.replaysHolding > 0 }, "the hold was reached")
        _ = await fixture.service.lock([Fixture.reference(diary)], client: Fixture.alice)
        holding.releaseReplays()

        let done = await fixture.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } }
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .objects([])))
        #expect(try await fixture.service.collectionInfo(diary).isLocked)
    }

    /// The key derivation's window: the unlock is held while it unwraps the key (a security key
    /// waiting for its touch stands for Argon2id), before it starts reading the collection.
    @Test(arguments: LockKind.allCases)
    func aLockWhileAnUnlockUnwrapsItsKeyWinsToo(kind: LockKind) async throws {
        let keys = FakeSecurityKeys()
        let fixture = try await Fixture.persistent(securityKeys: keys)
        let mail = try await fixture.makeCollection("Mail", passcode: "mail passcode")
        let item = try await fixture.store(["service": "imap"], secret: "mail secret", in: mail)
        _ = try await fixture.service.addSlot(
            to: mail, kind: .fido2, options: SlotOptions(label: "yubikey"),
            proof: .typed(Fixture.passcode("mail passcode")), caller: Caller(Fixture.alice))
        try await fixture.service.lock([mail])
        keys.setTouch(.wait)
        let touch = SlotCredential.hardware(pin: nil, passcode: nil, device: nil)
        let unlocking = Task {
            await serviceError { () async throws(ServiceError) in try await fixture.service.unlock(mail, with: touch) }
        }
        try #require(await poll(limit: HangGuard.step) { keys.waitingForTouch > 0 }, "the hold was reached")
        try await Self.lock(mail, kind, fixture.service)
        keys.touch()

        #expect(await unlocking.value == Self.refused)
        #expect(try await fixture.service.collectionInfo(mail).isLocked, "the Lock won")
        #expect(await fixture.service.unlocksUnderWay(of: mail) == 0)
        keys.setTouch(.auto)
        try await fixture.service.unlock(mail, with: touch)
        #expect(try await fixture.read(item) == "mail secret")
    }

    @Test func aChangeThatOpensALockedCollectionIsRefusedWhenALockCameWhileItsProofWasUnwrapped() async throws {
        let keys = FakeSecurityKeys()
        let fixture = try await Fixture.persistent(securityKeys: keys)
        let mail = try await fixture.makeCollection("Mail", passcode: "mail passcode")
        _ = try await fixture.service.addSlot(
            to: mail, kind: .fido2, options: SlotOptions(label: "yubikey"),
            proof: .typed(Fixture.passcode("mail passcode")), caller: Caller(Fixture.alice))
        try await fixture.service.lock([mail])
        keys.setTouch(.wait)
        let changing = Task {
            await serviceError { () async throws(ServiceError) in
                try await fixture.service.setLockedSearch(
                    .never, of: mail, with: .hardware(pin: nil, passcode: nil, device: nil),
                    caller: Caller(Fixture.alice))
            }
        }
        try #require(await poll(limit: HangGuard.step) { keys.waitingForTouch > 0 }, "the hold was reached")
        await fixture.service.lockAll(reason: .systemSleep)
        keys.touch()

        #expect(await changing.value == Self.refused)
        #expect(try await fixture.service.collectionInfo(mail).isLocked, "the Lock won")
    }

    /// A hidden collection's unlock reads its journal twice: to find its id (before it has a
    /// vault), then to open it; a Lock of everything during either wins.
    @Test(arguments: [1, 2])
    func aLockOfEverythingWhileAHiddenCollectionOpensKeepsItHidden(heldRead: Int) async throws {
        let holding = HoldingRecordStore(MemoryRecordStore())
        let fixture = try await Fixture.persistent(storage: holding)
        let stash = try await fixture.makeCollection("Stash", passcode: "stash pass", isHidden: true)
        let item = try await fixture.store(["app": "stash"], secret: "hidden value", in: stash)
        try await fixture.service.lock([stash])
        holding.holdReplays()
        let unlocking = Task {
            await serviceError { () async throws(ServiceError) in try await fixture.unlock(nil, "stash pass") }
        }
        try #require(await poll(limit: HangGuard.step) { holding.replaysHolding > 0 }, "the hold was reached")
        if heldRead == 2 {
            holding.releaseReplays()
            holding.holdReplays()
            try #require(await poll(limit: HangGuard.step) { holding.replaysHolding > 0 }, "the hold was reached")
        }
        await fixture.service.lockAll(reason: .signal)
        holding.releaseReplays()

        #expect(await unlocking.value == Self.refused)
        #expect(await fixture.service.collections == [.login, .session], "still hidden")
        #expect(await fixture.service.itemIDs(in: stash).isEmpty)
        try await fixture.unlock(nil, "stash pass")
        #expect(try await fixture.read(item) == "hidden value")
    }

    @Test func aFailedUnlockDuringAnotherLeavesOneUnderWayAndNoneOnceThatOneEnds() async throws {
        let (fixture, holding, diary, item) = try await Self.lockedDiary()
        let service = fixture.service
        holding.holdReplays()
        // An export opens the collection with its passcode outside the passcode-attempt turn,
        // so a typed unlock runs beside it.
        let exporting = Task {
            try await service.exportItems(
                of: diary, consent: .passcode(Fixture.passcode("diary pass")), caller: Caller(Fixture.alice))
        }
        try #require(await poll(limit: HangGuard.step) { holding.replaysHolding > 0 }, "the hold was reached")
        #expect(await service.unlocksUnderWay(of: diary) == 1)
        holding.failNextReplay(with: .readFailed("injected read error"))
        let failed = await serviceError { () async throws(ServiceError) in try await fixture.unlock(diary, "diary pass")
        }
        #expect(failed == .damaged("\(StoreError.readFailed("injected read error"))"))
        #expect(await service.unlocksUnderWay(of: diary) == 1, "the failed unlock is no longer counted")
        holding.releaseReplays()

        #expect(try await exporting.value.collection.items.count == 1)
        #expect(try await !service.collectionInfo(diary).isLocked)
        #expect(await service.unlocksUnderWay(of: diary) == 0)
        try await service.lock([diary])
        #expect(try await service.collectionInfo(diary).isLocked)
        try await fixture.unlock(diary, "diary pass")
        #expect(try await fixture.read(item) == "dear diary")
    }
}
