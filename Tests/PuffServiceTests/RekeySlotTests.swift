// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A passcode change (re-key) of a collection with several slots (design §3 "Re-key"): the
/// slots at hand are kept (the passcode under a new salt, tpm2 sealed again, and those whose
/// credential is given), the others dropped only when the person said so, listed otherwise.
@Suite struct RekeySlotTests {
    static let caller = SlotUnlockTests.caller
    static let hardware = SlotCredential.hardware(pin: nil, passcode: nil, device: nil)

    /// `Mail` with passcode, tpm2 and recovery slots; returns the recovery code.
    static func threeSlots() async throws -> (Fixture, CollectionID, ItemID, FakeTPM, SecureBytes) {
        let tpm = FakeTPM()
        let (fixture, id, item) = try await SlotUnlockTests.mail(tpm: tpm)
        _ = try await fixture.service.addSlot(
            to: id, kind: .tpm2, options: SlotOptions(), proof: SlotUnlockTests.proof(), caller: Self.caller)
        let code = try #require(
            try await fixture.service.addSlot(
                to: id, kind: .recovery, options: SlotOptions(), proof: SlotUnlockTests.proof(), caller: Self.caller
            ).recoveryCode)
        return (fixture, id, item, tpm, code)
    }

    @Test func aSlotWhoseCredentialIsNotAtHandIsListedAndNothingChanges() async throws {
        let (fixture, id, _, tpm, _) = try await Self.threeSlots()
        let space = try await fixture.space(of: id)
        let before = try await fixture.storage.header(of: space)
        let seals = tpm.calls.seals
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: id, old: Fixture.passcode(SlotUnlockTests.passcode), new: Fixture.passcode("new mail pass"))
        }
        #expect(error == .wouldDropSlots([SlotInfo(id: 3, kind: .recovery, label: "recovery")]))
        #expect(try await fixture.space(of: id) == space)
        #expect(try await fixture.storage.header(of: space) == before)
        #expect(tpm.calls.seals == seals, "refused before anything was sealed")
    }

    @Test func droppingWhenToldKeepsThePasscodeAndTPMSlotsAndTheDroppedCodeOpensNothing() async throws {
        let (fixture, id, item, _, code) = try await Self.threeSlots()
        try await fixture.service.changePasscode(
            of: id, proof: SlotUnlockTests.proof(), new: Fixture.passcode("new mail pass"),
            options: RekeyOptions(dropSlots: true))
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.slots.map(\.id) == [1, 2] && header.nextSlotID == 4, "ids kept, never reused")
        try await fixture.service.lock([id])
        #expect(await fixture.service.unlockWithoutPerson() == [id], "the tpm2 slot was sealed again")
        #expect(try await fixture.holds(item, "mail secret"))
        try await fixture.service.lock([id])
        let dropped = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .typed(code))
        }
        #expect(dropped == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        let old = await fixture.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await fixture.unlock(id, SlotUnlockTests.passcode)
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 2, delay: .seconds(1))))
        _ = await fixture.failure(after: .seconds(1)) { () throws(ServiceError) in
            try await fixture.unlock(id, "new mail pass")
        }
        #expect(try await !fixture.service.collectionInfo(id).isLocked)
    }

    /// `passwd --recovery`: the forgotten passcode is replaced, proved by the recovery code, which
    /// keeps its slot (under a new salt) as the other two keep theirs.
    @Test func aRekeyProvedByTheRecoveryCodeKeepsEverySlot() async throws {
        let (fixture, id, item, _, code) = try await Self.threeSlots()
        let oldHeader = try await fixture.header(of: try await fixture.space(of: id))
        try await fixture.service.changePasscode(of: id, proof: .typed(code), new: Fixture.passcode("new mail pass"))
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.slots.map(\.kind) == [.passcode, .tpm2, .recovery])
        #expect(header.slots[2].parameters != oldHeader.slots[2].parameters, "the recovery slot has a new salt")
        for credential in [SlotCredential.typed(code), .typed(Fixture.passcode("new mail pass")), Self.hardware] {
            try await fixture.service.lock([id])
            try await fixture.service.unlock(id, with: credential)
            #expect(try await fixture.holds(item, "mail secret"))
        }
    }

    @Test func aLoginSlotIsKeptOnlyWithItsRightPassword() async throws {
        let (fixture, id, _) = try await SlotUnlockTests.mail()
        _ = try await fixture.service.addSlot(
            to: id, kind: .login, options: SlotOptions(newPasscode: Fixture.passcode("login password")),
            proof: SlotUnlockTests.proof(), caller: Self.caller)
        let wrong = await serviceError { () throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: id, proof: SlotUnlockTests.proof(), new: Fixture.passcode("new mail pass"),
                options: RekeyOptions(loginPassword: Fixture.passcode("not it")))
        }
        #expect(wrong == .wrongPasscode(nil))
        try await fixture.service.changePasscode(
            of: id, proof: SlotUnlockTests.proof(), new: Fixture.passcode("new mail pass"),
            options: RekeyOptions(loginPassword: Fixture.passcode("login password")))
        try await fixture.service.lock([id])
        try await fixture.service.unlock(id, with: .login(Fixture.passcode("login password")))
        #expect(try await !fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aFido2SlotIsKeptWithATouchOfItsKey() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id, _) = try await SlotUnlockTests.mail(keys: keys)
        _ = try await fixture.service.addSlot(
            to: id, kind: .fido2, options: SlotOptions(label: "yubikey"), proof: SlotUnlockTests.proof(),
            caller: Self.caller)
        let assertions = keys.calls.assertions
        try await fixture.service.changePasscode(
            of: id, proof: SlotUnlockTests.proof(), new: Fixture.passcode("new mail pass"),
            options: RekeyOptions(securityKey: true))
        #expect(keys.calls.assertions == assertions + 1, "one touch to keep it")
        try await fixture.service.lock([id])
        try await fixture.service.unlock(id, with: Self.hardware)
        #expect(try await !fixture.service.collectionInfo(id).isLocked)
    }
}
