// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Testing

@testable import PuffClient

/// `puffctl slot …`, `unlock --recovery` and `passwd --recovery` on the command line, parsed in-process.
struct SlotParsingTests {
    private func parse<C: ParsableCommand>(_ arguments: [String], as type: C.Type) throws -> C {
        try #require(try Puffctl.parseAsRoot(arguments) as? C)
    }

    @Test func slotAddTakesTheCollectionThenTheType() throws {
        let command = try parse(["slot", "add", "login", "recovery", "--stdin"], as: AddSlot.self)
        #expect(command.collection == "login")
        #expect(command.slotType == "recovery")
        #expect(command.passcodes.oldSource == .standardInput)
    }

    @Test func fido2WithAPasscodeIsTheFido2PlusPasscodeType() throws {
        let command = try parse(
            ["slot", "add", "login", "fido2", "--with-passcode", "--pin-fd", "5"], as: AddSlot.self)
        #expect(command.slotType == "fido2+passcode")
        #expect(command.isFIDO2)
        #expect(command.pinFd == 5)
    }

    @Test(arguments: [
        ("7", UInt32(0x80)), ("7+11", UInt32(0x880)), ("0,1,2", UInt32(0x7)), ("23", UInt32(0x80_0000)),
    ])
    func pcrListsBecomeMasks(text: String, mask: UInt32) throws {
        #expect(try PCRList.mask(text) == mask)
        let command = try parse(["slot", "add", "login", "tpm2", "--pcrs", text], as: AddSlot.self)
        #expect(command.pcrs == text)
    }

    @Test(arguments: [
        ["slot", "add", "login", "tpm2", "--pcrs", "24"],
        ["slot", "add", "login", "tpm2", "--pcrs", "seven"],
        ["slot", "add", "login", "tpm2", "--pcrs", "+"],
        ["slot", "add", "login", "passcode", "--uv"],
        ["slot", "add", "login", "recovery", "--pin"],
        ["slot", "add", "login", "passcode", "--pcrs", "7"],
        ["slot", "add", "login", "fido2", "--tpm2-device", "swtpm:path=/tmp/s"],
        ["slot", "add", "login", "login"],
        ["slot", "add", "login", "yubikey"],
        ["slot", "add", "login", "recovery", "XXXX-XXXX"],
        ["slot", "remove", "login", "one"],
        ["unlock", "--hidden", "--recovery"],
        ["unlock", "--recovery-fd", "-1"],
    ])
    func optionsThatDoNotFitTheTypeAreRefused(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(arguments) }
    }

    @Test func unlockAndPasswdTakeARecoveryCodeFromADescriptor() throws {
        let unlock = try parse(["unlock", "work", "--recovery-fd", "4"], as: Unlock.self)
        #expect(unlock.recoveryCode.isGiven)
        #expect(unlock.recoveryCode.descriptor == 4)
        let passwd = try parse(["passwd", "work", "--recovery", "--stdin"], as: ChangePasscode.self)
        #expect(passwd.recoveryCode.isGiven)
        #expect(passwd.recoveryCode.descriptor == nil)
        #expect(passwd.passcodes.newSource == .standardInput)
        #expect(try !parse(["unlock", "work"], as: Unlock.self).recoveryCode.isGiven)
    }

    @Test func slotRelabelTakesTheSlotAndTheLabel() throws {
        let command = try parse(["slot", "relabel", "login", "2", "desk drawer", "--stdin"], as: RelabelSlot.self)
        #expect(command.slot == 2 && command.label == "desk drawer")
        #expect(command.passcode.source == .standardInput)
    }

    @Test func slotRemoveTakesTheSlotNumber() throws {
        let command = try parse(["slot", "remove", "login", "3", "--passcode-fd", "5"], as: RemoveSlot.self)
        #expect(command.slot == 3)
        #expect(command.passcode.source == .descriptor(5))
    }
}
