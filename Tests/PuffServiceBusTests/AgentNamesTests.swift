// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import Testing

@testable import PuffServiceBus

/// The `Ask` questions of issue 26 as puffd sends them to `puffctl agent` (dbus/io.puff.Agent1.xml).
@Suite struct AgentNamesTests {
    static func question(_ purpose: PromptRequest.Purpose) -> [String: DBusValue] {
        AgentNames.question(
            PromptRequest(purpose: purpose, caller: ClientID(":1.5"), windowID: "", application: "/usr/bin/app"))
    }

    static func int32(_ value: DBusValue?) -> Int32? {
        if case .int32(let number)? = value { number } else { nil }
    }

    @Test func theTouchQuestionNamesTheKeyAndWhatMayBeTypedInstead() {
        let question = Self.question(
            .touchSecurityKey(
                collection: CollectionID("work"), label: "Work", slotLabel: "yubikey", instead: .recoveryCode))
        #expect(question["purpose"]?.string == "touch-security-key")
        #expect(question["collection"]?.string == "work")
        #expect(question["label"]?.string == "Work")
        #expect(question["slot_label"]?.string == "yubikey")
        #expect(question["instead"]?.string == "recovery")
        #expect(question["repeat"]?.bool == false)
        let nothing = Self.question(
            .touchSecurityKey(collection: CollectionID("work"), label: "Work", slotLabel: "yubikey", instead: nil))
        #expect(nothing["instead"]?.string == "")
    }

    @Test func thePINQuestionCarriesTheTriesLeftOrMinusOne() {
        let three = Self.question(
            .securityKeyPIN(collection: CollectionID("work"), label: "Work", slotLabel: "yubikey", retries: 3))
        #expect(three["purpose"]?.string == "security-key-pin")
        #expect(three["slot_label"]?.string == "yubikey")
        #expect(Self.int32(three["retries"]) == 3)
        let unknown = Self.question(
            .securityKeyPIN(collection: CollectionID("work"), label: "Work", slotLabel: "yubikey", retries: nil))
        #expect(Self.int32(unknown["retries"]) == -1)
    }

    @Test func anUnlockSaysWhichSlotItAsksFor() {
        let cases: [(TypedSlot, String)] = [
            (.passcode, "passcode"), (.recoveryCode, "recovery"), (.passcodeOrRecoveryCode, "passcode-or-recovery"),
            (.loginPassword, "login"), (.securityKeyPasscode(slotLabel: "k"), "fido2+passcode"),
        ]
        for (slot, word) in cases {
            let question = Self.question(.unlock(collection: CollectionID("work"), label: "Work", slot: slot))
            #expect(question["purpose"]?.string == "unlock")
            #expect(question["slot"]?.string == word)
        }
        let withKey = Self.question(
            .unlock(collection: CollectionID("work"), label: "Work", slot: .securityKeyPasscode(slotLabel: "k")))
        #expect(withKey["slot_label"]?.string == "k")
    }
}
