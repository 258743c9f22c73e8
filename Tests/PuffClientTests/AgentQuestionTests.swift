// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffText
import Testing

@testable import PuffClient

/// What `puffctl agent` shows for each question purpose of dbus/io.puff.Agent1.xml, and which
/// questions it asks twice.
@Suite struct AgentQuestionTests {
    private func question(_ purpose: String, repeats: Bool = false, policy: String = "") -> AgentQuestion {
        AgentQuestion([
            ControlContract.Key.purpose: .string(purpose),
            ControlContract.Key.collection: .string(purpose == "create" ? "" : "phone"),
            ControlContract.Key.label: .string("Phone"), ControlContract.Key.application: .string("/usr/bin/seahorse"),
            ControlContract.Key.windowID: .string(""),
            ControlContract.Key.error: .string(""), ControlContract.Key.policy: .string(policy),
            ControlContract.Key.repeats: .boolean(repeats),
        ])
    }

    @Test func aReadQuestionOffersOnceAlwaysDenyAndAnEmptyLineRemembersNothing() {
        let text = question("allow-read")
        #expect(text.description == "/usr/bin/seahorse wants to read the item “Phone” for the first time.")
        #expect(text.choices == ["once", "always", "deny"])
        #expect(text.choice(typed: "a") == "always")
        #expect(text.choice(typed: "once") == "once")
        #expect(text.choice(typed: "d") == "deny")
        #expect(text.choice(typed: "") == nil)
        #expect(text.choice(typed: "yes") == nil)
    }

    @Test func aConfirmationOffersOnceOrDenyAndNeverAlways() {
        let text = question("confirm-read")
        #expect(text.description == "/usr/bin/seahorse wants to read the protected item “Phone”.")
        #expect(text.choices == ["once", "deny"])
        #expect(text.choice(typed: "a") == nil)
        #expect(text.choice(typed: "o") == "once")
    }

    @Test func anUnlockAsksOnceForThePasscodeWithThePolicy() {
        let text = question("unlock", policy: "6 digits")
        #expect(text.description == "/usr/bin/seahorse wants to unlock the collection “Phone”.")
        #expect(text.prompt == "Passcode for “Phone” (6 digits):")
        #expect(!text.repeats)
    }

    @Test func aNewCollectionAsksTwiceForANewPasscode() {
        let text = question("create", repeats: true, policy: "at least 8 characters")
        #expect(text.description == "/usr/bin/seahorse wants to create the collection “Phone”.")
        #expect(text.prompt == "New passcode for “Phone” (at least 8 characters):")
        #expect(text.repeats)
    }

    @Test func aPasscodeChangeAsksForTheCurrentOneThenTheNewOne() {
        let current = question("current-passcode")
        #expect(current.description == "/usr/bin/seahorse wants to change the passcode of the collection “Phone”.")
        #expect(current.prompt == "Current passcode of “Phone”:")
        #expect(!current.repeats)
        let new = question("new-passcode", repeats: true, policy: "6 digits")
        #expect(new.prompt == "New passcode for “Phone” (6 digits):")
        #expect(new.repeats)
    }

    /// Issue 24 item 15: a label and an executable path set by a client reach the agent's
    /// terminal; their control characters are shown escaped, never sent as terminal commands.
    @Test func aLabelAndAnExecutableWithTerminalCommandsAreShownEscaped() {
        let text = AgentQuestion([
            ControlContract.Key.purpose: .string("allow-read"), ControlContract.Key.collection: .string("login"),
            ControlContract.Key.label: .string("evil\u{1B}[2J\u{9B}31m"),
            ControlContract.Key.application: .string("/tmp/x\u{1B}]0;t\u{07}"),
            ControlContract.Key.error: .string("bad\nline"),
        ])
        #expect(
            text.description
                == "/tmp/x\\u001b]0;t\\u0007 wants to read the item “evil\\u001b[2J\\u009b31m” for the first time.")
        #expect(text.error == "bad\\nline")
        #expect(!(text.description + text.error + text.prompt).unicodeScalars.contains { TerminalText.isControl($0) })
    }

    /// Issue 24 item 2: a change that weakens protection is asked once or deny, in words that
    /// carry the item's label (set by a client), escaped.
    @Test func aChangeToConfirmIsAskedOnceOrDenyWithTheLabelEscaped() {
        let text = AgentQuestion([
            ControlContract.Key.purpose: .string("confirm-change"), ControlContract.Key.collection: .string("login"),
            ControlContract.Key.change: .string("lift the protection of the item “evil\u{1B}[2J”"),
            ControlContract.Key.application: .string("/usr/bin/puffctl"),
        ])
        #expect(text.description == "/usr/bin/puffctl wants to lift the protection of the item “evil\\u001b[2J”.")
        #expect(text.choices == ["once", "deny"])
        #expect(text.choice(typed: "o") == "once")
        #expect(text.choice(typed: "") == nil)
    }

    /// Issue 26: the question names what to type, and a security key's questions name the key.
    @Test func anUnlockNamesTheSlotItAsksFor() {
        func prompt(_ slot: String, label: String = "") -> String {
            AgentQuestion([
                ControlContract.Key.purpose: .string("unlock"), ControlContract.Key.collection: .string("phone"),
                ControlContract.Key.label: .string("Phone"),
                ControlContract.Key.policy: .string("6 digits"), ControlContract.Key.slot: .string(slot),
                ControlContract.Key.slotLabel: .string(label),
            ]).prompt
        }
        #expect(prompt("passcode") == "Passcode for “Phone” (6 digits):")
        #expect(prompt("recovery") == "Recovery code for “Phone” (XXXX-XXXX-…):")
        #expect(prompt("passcode-or-recovery") == "Passcode (6 digits) or recovery code for “Phone”:")
        #expect(prompt("login") == "Login password for “Phone”:")
        #expect(
            prompt("fido2+passcode", label: "yubi\u{1B}[2J")
                == "Passcode for “Phone” with the security key “yubi\\u001b[2J” (6 digits) (the key is asked next):")
    }

    @Test func theTouchQuestionOffersToTypeInsteadOrCancelAndEnterCancels() {
        let text = AgentQuestion([
            ControlContract.Key.purpose: .string("touch-security-key"),
            ControlContract.Key.collection: .string("phone"), ControlContract.Key.label: .string("Phone"),
            ControlContract.Key.application: .string("/usr/bin/seahorse"),
            ControlContract.Key.slotLabel: .string("key\u{9B}2J"),
            ControlContract.Key.instead: .string("recovery"),
        ])
        #expect(
            text.description
                == "/usr/bin/seahorse wants to unlock the collection “Phone”.\nTouch the security key “key\\u009b2J” now."
        )
        #expect(text.prompt == "[t]ype the recovery code instead, or [c]ancel (Enter: cancel):")
        #expect(text.choices == ["type", "cancel"])
        #expect(text.choice(typed: "t") == "type")
        #expect(text.choice(typed: "") == nil)
        let nothingTyped = AgentQuestion([
            ControlContract.Key.purpose: .string("touch-security-key"), ControlContract.Key.label: .string("Phone"),
            ControlContract.Key.slotLabel: .string("k"),
            ControlContract.Key.instead: .string(""),
        ])
        #expect(nothingTyped.choices == ["cancel"])
        #expect(nothingTyped.choice(typed: "t") == nil)
    }

    @Test func thePINQuestionNamesTheKeyAndTheTriesLeft() {
        func text(_ retries: Int32?) -> AgentQuestion {
            var question: [String: DBusValue] = [
                ControlContract.Key.purpose: .string("security-key-pin"),
                ControlContract.Key.collection: .string("phone"), ControlContract.Key.label: .string("Phone"),
                ControlContract.Key.slotLabel: .string("yubikey"),
            ]
            if let retries { question[ControlContract.Key.retries] = .int32(retries) }
            return AgentQuestion(question)
        }
        #expect(text(3).prompt == "PIN of the security key “yubikey” (3 tries left before the key blocks it):")
        #expect(text(1).prompt == "PIN of the security key “yubikey” (1 try left before the key blocks it):")
        #expect(text(-1).prompt == "PIN of the security key “yubikey”:")
        #expect(text(nil).choices.isEmpty && !text(nil).repeats, "read like a passcode, once")
    }

    /// A newer puffd's question is declined, never asked as if it were a passcode.
    @Test func aQuestionOfUnknownPurposeIsDeclined() {
        let text = AgentQuestion([
            ControlContract.Key.purpose: .string("scan-retina"), ControlContract.Key.label: .string("Phone"),
        ])
        #expect(text.unknown)
        #expect(!question("unlock").unknown)
    }
}
