// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Unlocking through any slot (issue 26, docs/design/unlock-slots.md §3): each slot type opens
/// the collection with its own credential and nothing else does, with the TPM and security keys
/// played by PuffTesting's fakes.
@Suite struct SlotUnlockTests {
    static let caller = Caller(Fixture.alice, executable: "/usr/bin/puffctl")
    static let passcode = "mail passcode"

    /// A persistent vault with `Mail` under ``passcode``, locked, holding one item.
    static func mail(tpm: FakeTPM? = nil, keys: FakeSecurityKeys? = nil) async throws -> (Fixture, CollectionID, ItemID)
    {
        let fixture = try await Fixture.persistent(tpm: tpm, securityKeys: keys)
        let id = try await fixture.makeCollection("Mail", passcode: passcode)
        let item = try await fixture.store(["service": "imap"], secret: "mail secret", in: id)
        try await fixture.service.lock([id])
        return (fixture, id, item)
    }

    static func proof(_ text: String = passcode) -> SlotCredential { .typed(Fixture.passcode(text)) }

    @Test func aNewCollectionIsVersion3WithOnePasscodeSlot() async throws {
        let (fixture, id, _) = try await Self.mail()
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.version == 3 && !header.isLegacy)
        #expect(header.slots.map(\.kind) == [.passcode])
        #expect(try await fixture.service.slots(of: id) == [SlotInfo(id: 1, kind: .passcode, label: "passcode")])
    }

    @Test func aRecoveryCodeOpensInAnyCaseWithOrWithoutDashesAndSpaces() async throws {
        let (fixture, id, item) = try await Self.mail()
        let added = try await fixture.service.addSlot(
            to: id, kind: .recovery, options: SlotOptions(label: "paper"), proof: Self.proof(), caller: Self.caller)
        let shown = String(decoding: try #require(added.recoveryCode).unprotectedArray(), as: UTF8.self)
        #expect(shown.split(separator: "-").count == 8 && shown.split(separator: "-").allSatisfy { $0.count == 4 })
        let spellings = [
            shown, shown.lowercased(), shown.replacingOccurrences(of: "-", with: ""),
            shown.replacingOccurrences(of: "-", with: " ").lowercased(),
        ]
        for spelling in spellings {
            try await fixture.service.lock([id])
            let before = await fixture.service.keyDerivations
            try await fixture.service.unlock(id, with: .typed(Fixture.passcode(spelling)))
            #expect(await fixture.service.keyDerivations == before, "a recovery code needs no Argon2id run")
            #expect(try await fixture.holds(item, "mail secret"))
        }
    }

    @Test func aWrongRecoveryCodeIsAWrongPasscode() async throws {
        let (fixture, id, _) = try await Self.mail()
        let added = try await fixture.service.addSlot(
            to: id, kind: .recovery, options: SlotOptions(), proof: Self.proof(), caller: Self.caller)
        var changed = try #require(added.recoveryCode).unprotectedArray()
        changed[0] = changed[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = changed
        try await fixture.service.lock([id])
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .typed(SecureBytes(unwipedCopyOf: other)))
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aTPMSlotOpensWithNoPersonAndNotOnAReplacedTPMWhereThePasscodeStillDoes() async throws {
        let tpm = FakeTPM()
        let (fixture, id, item) = try await Self.mail(tpm: tpm)
        _ = try await fixture.service.addSlot(
            to: id, kind: .tpm2, options: SlotOptions(label: "this laptop"), proof: Self.proof(), caller: Self.caller)
        try await fixture.service.lock([id])
        #expect(await fixture.service.unlockWithoutPerson() == [id])
        #expect(try await fixture.holds(item, "mail secret"))

        try await fixture.service.lock([id])
        tpm.replace()
        #expect(await fixture.service.unlockWithoutPerson() == [])
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        #expect(error == .hardware(.otherTPM))
        #expect(try await fixture.service.collectionInfo(id).isLocked)
        try await fixture.unlock(id, Self.passcode)
        #expect(try await fixture.holds(item, "mail secret"))
    }

    @Test func aTPMSlotBoundToAPCRRefusesAfterThatPCRChanged() async throws {
        let tpm = FakeTPM()
        let (fixture, id, _) = try await Self.mail(tpm: tpm)
        _ = try await fixture.service.addSlot(
            to: id, kind: .tpm2, options: SlotOptions(pcrMask: 1 << 7), proof: Self.proof(), caller: Self.caller)
        #expect(try await fixture.service.slots(of: id).last?.pcrMask == 1 << 7)
        try await fixture.service.lock([id])
        tpm.extend(8)
        #expect(await fixture.service.unlockWithoutPerson() == [id], "PCR 8 is not bound")
        try await fixture.service.lock([id])
        tpm.extend(7)
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        #expect(error == .hardware(.pcrChanged))
    }

    @Test func withoutATPMAHardwareUnlockOfAPasscodeOnlyCollectionSaysItHasNoSuchSlot() async throws {
        let (fixture, id, _) = try await Self.mail()
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        guard case .noMatchingSlot = error else {
            Issue.record("expected noMatchingSlot, got \(String(describing: error))")
            return
        }
        #expect(await fixture.service.unlockWithoutPerson() == [])
    }

    @Test func aSecurityKeyOpensItsSlotAndAnotherKeyDoesNot() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id, item) = try await Self.mail(keys: keys)
        _ = try await fixture.service.addSlot(
            to: id, kind: .fido2, options: SlotOptions(label: "yubikey"), proof: Self.proof(), caller: Self.caller)
        try await fixture.service.lock([id])
        try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        #expect(try await fixture.holds(item, "mail secret"))
        #expect(keys.calls.lastAskedPresence, "a touch is asked by default")

        try await fixture.service.lock([id])
        keys.swap()
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        #expect(error == .hardware(.noCredential))
        #expect(try await fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aPINSlotNeedsThePINAndAWrongOneSaysHowManyTriesAreLeft() async throws {
        let keys = FakeSecurityKeys(pin: "4711")
        let (fixture, id, _) = try await Self.mail(keys: keys)
        _ = try await fixture.service.addSlot(
            to: id, kind: .fido2, options: SlotOptions(pin: Fixture.passcode("4711")), proof: Self.proof(),
            caller: Self.caller)
        try await fixture.service.lock([id])
        let none = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .hardware(pin: nil, passcode: nil, device: nil))
        }
        #expect(none == .hardware(.pinRequired))
        let wrong = await serviceError { () throws(ServiceError) in
            try await fixture.service.unlock(
                id, with: .hardware(pin: Fixture.passcode("0000"), passcode: nil, device: nil))
        }
        #expect(wrong == .hardware(.pinInvalid(retries: 7)))
        try await fixture.service.unlock(id, with: .hardware(pin: Fixture.passcode("4711"), passcode: nil, device: nil))
        #expect(try await !fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aFido2PasscodeSlotNeedsBothTheKeyAndThePasscode() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id, _) = try await Self.mail(keys: keys)
        _ = try await fixture.service.addSlot(
            to: id, kind: .fido2Passcode, options: SlotOptions(withPasscode: Fixture.passcode("key and words")),
            proof: Self.proof(), caller: Self.caller)
        try await fixture.service.lock([id])
        // The slot's passcode typed alone opens nothing: it is no passcode slot.
        let typedAlone = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: .typed(Fixture.passcode("key and words")))
        }
        #expect(typedAlone == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        let wrong = await fixture.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await fixture.service.unlock(
                id, with: .hardware(pin: nil, passcode: Fixture.passcode("other words"), device: nil))
        }
        #expect(wrong == .wrongPasscode(PasscodeRetry(attempt: 2, delay: .seconds(1))))
        keys.swap()
        let otherKey = await fixture.failure(after: .seconds(1)) { () throws(ServiceError) in
            try await fixture.service.unlock(
                id, with: .hardware(pin: nil, passcode: Fixture.passcode("key and words"), device: nil))
        }
        #expect(otherKey == .hardware(.noCredential))
        #expect(try await fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aLoginCredentialTriesLoginSlotsThenPasscodeSlots() async throws {
        let (fixture, id, _) = try await Self.mail()
        _ = try await fixture.service.addSlot(
            to: id, kind: .login, options: SlotOptions(newPasscode: Fixture.passcode("login password")),
            proof: Self.proof(), caller: Self.caller)
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.slots.count == 2 && header.slots[1].parameters.typed == header.slots[0].parameters.typed)
        try await fixture.service.lock([id])
        let before = await fixture.service.keyDerivations
        try await fixture.service.unlock(id, with: .login(Fixture.passcode("login password")))
        #expect(await fixture.service.keyDerivations == before + 1, "one Argon2id run for both typed slots")
        try await fixture.service.lock([id])
        try await fixture.service.unlock(id, with: .login(Fixture.passcode(Self.passcode)))
        #expect(try await !fixture.service.collectionInfo(id).isLocked)
    }

    @Test func aSlotAskedForByNumberIsTheOnlyOneTried() async throws {
        let (fixture, id, _) = try await Self.mail()
        let recovery = try await fixture.service.addSlot(
            to: id, kind: .recovery, options: SlotOptions(), proof: Self.proof(), caller: Self.caller)
        try await fixture.service.lock([id])
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: Self.proof(), slot: recovery.id)
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        let missing = await fixture.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await fixture.service.unlock(id, with: Self.proof(), slot: 9)
        }
        #expect(missing == .slotNotFound(9))
    }
}
