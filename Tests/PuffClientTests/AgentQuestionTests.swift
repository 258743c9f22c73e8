// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import Testing

@testable import PuffClient

/// What `puffctl agent` shows for each question purpose of dbus/io.puff.Agent1.xml, and which
/// questions it asks twice.
@Suite struct AgentQuestionTests {
    private func question(_ purpose: String, repeats: Bool = false, policy: String = "") -> AgentQuestion {
        AgentQuestion([
            "purpose": .string(purpose), "collection": .string(purpose == "create" ? "" : "phone"),
            "label": .string("Phone"), "application": .string("/usr/bin/seahorse"), "window_id": .string(""),
            "error": .string(""), "policy": .string(policy), "repeat": .boolean(repeats),
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
}
