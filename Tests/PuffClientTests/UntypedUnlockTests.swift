// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffDBus
import Testing

@testable import PuffClient

/// Which `puffctl unlock` tries the slots that need no typing, which slots those are, and which
/// refusals let it go on to the passcode (docs/unlock-slots.md, "puffctl unlock").
struct UntypedUnlockTests {
    private func unlock(_ arguments: [String]) throws -> Unlock {
        try #require(try Puffctl.parseAsRoot(["unlock"] + arguments) as? Unlock)
    }

    private func slot(_ id: UInt16, _ type: String, _ extra: [String: DBusValue] = [:]) throws -> SlotSummary {
        try SlotSummary(extra.merging(["id": .uint16(id), "type": .string(type), "label": .string(type)]) { $1 })
    }

    @Test func plainUnlockTriesTheSlotsThatNeedNoTyping() throws {
        #expect(try unlock([]).triesSlotsWithoutTyping)
        #expect(try unlock(["work"]).triesSlotsWithoutTyping)
    }

    @Test(arguments: [
        ["--stdin"], ["--passcode-fd", "3"], ["--recovery"], ["--recovery-fd", "4"], ["--security-key"],
        ["--fido2-device", "unix:/tmp/key"], ["--with-passcode"], ["--hidden"],
    ])
    func anInputOrCredentialGivenKeepsToIt(_ arguments: [String]) throws {
        #expect(try !unlock(arguments).triesSlotsWithoutTyping, "\(arguments)")
    }

    @Test func tpm2SlotsComeFirstThenFido2SlotsThatNeedNeitherPINNorPasscode() throws {
        let slots = [
            try slot(1, "passcode"), try slot(2, "fido2", ["up": .boolean(true), "pin": .boolean(false)]),
            try slot(3, "fido2", ["up": .boolean(true), "pin": .boolean(true)]), try slot(4, "fido2+passcode"),
            try slot(5, "recovery"), try slot(6, "tpm2", ["pcrs": .uint32(0)]), try slot(7, "login"),
        ]
        #expect(UntypedUnlock.candidates(slots).map(\.id) == [6, 2])
    }

    @Test func refusalsOfASlotGoOnToThePasscodeAndOtherFailuresDoNot() {
        #expect(UntypedUnlock.reason(.slotRefused("the slot was sealed by another TPM")) != nil)
        #expect(UntypedUnlock.reason(.notConfirmed("the security key was not touched")) != nil)
        #expect(UntypedUnlock.reason(.noSuchSlot("the collection has no slot 2")) != nil)
        #expect(UntypedUnlock.reason(.noReply) != nil)
        #expect(UntypedUnlock.reason(.damaged(collection: "login")) == nil)
        #expect(UntypedUnlock.reason(.daemonNotRunning) == nil)
        #expect(UntypedUnlock.reason(.accessDenied) == nil)
    }
}
