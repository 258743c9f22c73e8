// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Adding, removing and relabelling slots (issue 26, design §2 "Migration", "Crash safety"): each
/// needs any slot's credential, is audited done or refused, writes only the header, and the header
/// MAC catches a slot list changed without the key.
@Suite struct SlotChangeTests {
    static let caller = SlotUnlockTests.caller

    static func entries(_ fixture: Fixture, _ id: CollectionID, _ action: AuditAction) async throws -> [AuditEntry] {
        try await fixture.service.auditEntries(collection: id).entries.filter { $0.action == action }
    }

    @Test func theLastSlotCannotBeRemovedAndTheRefusalIsAudited() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        try await fixture.unlock(id, SlotUnlockTests.passcode)
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.removeSlot(1, from: id, proof: SlotUnlockTests.proof(), caller: Self.caller)
        }
        #expect(error == .lastSlot)
        #expect(try await fixture.service.slots(of: id).map(\.id) == [1])
        let refused = try await Self.entries(fixture, id, .slotRemove)
        #expect(refused.map(\.result) == [.refused] && refused.first?.label == "passcode “passcode”")
    }

    @Test func aSlotAddedWithAWrongProofIsRefusedAuditedAndNotWritten() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        try await fixture.unlock(id, SlotUnlockTests.passcode)
        let space = try await fixture.space(of: id)
        let before = try await fixture.storage.header(of: space)
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            _ = try await fixture.service.addSlot(
                to: id, kind: .passcode,
                options: SlotOptions(label: "spare", newPasscode: Fixture.passcode("second pass")),
                proof: SlotUnlockTests.proof("a guess"), caller: Self.caller)
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.storage.header(of: space) == before)
        let entries = try await Self.entries(fixture, id, .slotAdd)
        #expect(entries.map(\.result) == [.refused] && entries.first?.label == "passcode “spare”")
    }

    @Test func addingAndRemovingSlotsIsAuditedAndARemovedSlotOpensNothing() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        let spare = try await fixture.service.addSlot(
            to: id, kind: .passcode, options: SlotOptions(label: "spare", newPasscode: Fixture.passcode("second pass")),
            proof: SlotUnlockTests.proof(), caller: Self.caller)
        #expect(try await !fixture.service.collectionInfo(id).isLocked, "the proof unlocked it first")
        try await fixture.service.lock([id])
        try await fixture.unlock(id, "second pass")
        // The spare passcode proves the first slot's removal.
        try await fixture.service.removeSlot(
            1, from: id, proof: SlotUnlockTests.proof("second pass"), caller: Self.caller)
        #expect(try await fixture.service.slots(of: id).map(\.id) == [spare.id])
        try await fixture.service.lock([id])
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.unlock(id, SlotUnlockTests.passcode)
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        _ = await fixture.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await fixture.unlock(id, "second pass")
        }
        #expect(try await Self.entries(fixture, id, .slotAdd).map(\.label) == ["passcode “spare”"])
        let removed = try await Self.entries(fixture, id, .slotRemove)
        #expect(removed.map(\.label) == ["passcode “passcode”"] && removed.allSatisfy { $0.result == .allowed })
    }

    @Test func aRelabelIsAuditedFromOldToNewName() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        try await fixture.service.relabelSlot(
            1, of: id, label: "daily", proof: SlotUnlockTests.proof(), caller: Self.caller)
        #expect(try await fixture.service.slots(of: id).map(\.label) == ["daily"])
        #expect(try await Self.entries(fixture, id, .slotRelabel).map(\.label) == ["passcode “passcode” → “daily”"])
        let bad = await serviceError { () throws(ServiceError) in
            try await fixture.service.relabelSlot(
                1, of: id, label: "two\nlines", proof: SlotUnlockTests.proof(), caller: Self.caller)
        }
        guard case .invalidArgument = bad else {
            Issue.record("expected invalidArgument, got \(String(describing: bad))")
            return
        }
    }

    /// Any slot proves a locked-search change of a version 3 header (the MAC covers the mode), and
    /// the collection still opens through every slot after it.
    @Test func aRecoveryCodeProvesALockedSearchChangeAndEverySlotStillOpens() async throws {
        let (fixture, id, item) = try await SlotUnlockTests.mail()
        let code = try #require(
            try await fixture.service.addSlot(
                to: id, kind: .recovery, options: SlotOptions(), proof: SlotUnlockTests.proof(), caller: Self.caller
            ).recoveryCode)
        try await fixture.service.lock([id])
        try await fixture.service.setLockedSearch(.never, of: id, with: .typed(code), caller: Self.caller)
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.version == 3 && header.lockedSearch == .never && header.indexKey == nil)
        for credential in [SlotCredential.typed(code), SlotUnlockTests.proof()] {
            let restarted = try await fixture.restarted()
            try await restarted.service.unlock(id, with: credential)
            #expect(try await restarted.holds(item, "mail secret"))
        }
    }

    @Test func aHiddenCollectionTakesNoOtherSlot() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.makeCollection("Stash", passcode: "stash pass", isHidden: true)
        let error = await serviceError { () throws(ServiceError) in
            _ = try await fixture.service.addSlot(
                to: id, kind: .recovery, options: SlotOptions(), proof: SlotUnlockTests.proof("stash pass"),
                caller: Self.caller)
        }
        guard case .invalidArgument = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
        let space = try #require(try await fixture.hiddenSpaces().first)
        #expect(try await fixture.header(of: space).slots.map(\.kind) == [.passcode])
    }

    /// Attack (thief or planted file, design §2): a header whose slot list was edited without the
    /// master key (here a label) opens its slot, then fails the MAC: damage, not a wrong passcode.
    @Test func aHeaderChangedWithoutTheKeyIsDamageNotAWrongPasscode() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        let space = try await fixture.space(of: id)
        var header = try await fixture.header(of: space)
        header.slots[0].label = "pwned"
        try await fixture.storage.replaceHeader(header.encoded(), of: space)
        let restarted = try await fixture.restarted()
        let error = await serviceError { () throws(ServiceError) in
            try await restarted.unlock(id, SlotUnlockTests.passcode)
        }
        guard case .damaged(let why) = error else {
            Issue.record("expected damaged, got \(String(describing: error))")
            return
        }
        #expect(why.contains("does not authenticate"))
    }

    @Test func aSixteenthSlotIsTheLast() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        let first = try await fixture.service.addSlot(
            to: id, kind: .recovery, options: SlotOptions(), proof: SlotUnlockTests.proof(), caller: Self.caller)
        // The recovery code proves the rest: no Argon2id run each.
        let code = SlotCredential.typed(try #require(first.recoveryCode))
        for _ in 2..<16 {
            _ = try await fixture.service.addSlot(
                to: id, kind: .recovery, options: SlotOptions(), proof: code, caller: Self.caller)
        }
        #expect(try await fixture.service.slots(of: id).count == 16)
        let error = await serviceError { () throws(ServiceError) in
            _ = try await fixture.service.addSlot(
                to: id, kind: .recovery, options: SlotOptions(), proof: code, caller: Self.caller)
        }
        #expect(error == .limitExceeded("a collection holds at most 16 slots"))
    }
}
