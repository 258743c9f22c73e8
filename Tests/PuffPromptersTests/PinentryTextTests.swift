// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

@testable import PuffPrompters

/// What pinentry shows for an unlock: who asks, which collection, and what its passcode looks like.
@Suite struct PinentryTextTests {
    private func request(policy: PasscodePolicy?) -> PromptRequest {
        PromptRequest(
            purpose: .unlock(collection: CollectionID("phone"), label: "Phone"), caller: ClientID(":1.5"),
            windowID: "", application: "/usr/bin/secret-tool", policy: policy)
    }

    @Test func theDescriptionSaysWhatThePasscodeLooksLike() {
        #expect(
            PinentryText(request(policy: .digits6)).description
                == "/usr/bin/secret-tool wants to unlock the collection “Phone”.\nEnter its passcode (6 digits).")
        #expect(
            PinentryText(request(policy: .standard)).description.hasSuffix(
                "Enter its passcode (at least 8 characters)."))
    }

    @Test func withoutAPolicyTheDescriptionAsksForThePasscodeAlone() {
        #expect(PinentryText(request(policy: nil)).description.hasSuffix("\nEnter its passcode."))
    }

    private func text(_ purpose: PromptRequest.Purpose, policy: PasscodePolicy? = .digits6) -> PinentryText {
        PinentryText(
            PromptRequest(
                purpose: purpose, caller: ClientID(":1.5"), windowID: "", application: "/usr/bin/app", policy: policy))
    }

    /// Issue 26: the unlock question names what to type, and the policy only where it applies.
    @Test func anUnlockNamesTheSlotItAsksFor() {
        let phone = CollectionID("phone")
        func asked(_ slot: TypedSlot) -> (String, String) {
            let shown = text(.unlock(collection: phone, label: "Phone", slot: slot))
            return (String(shown.description.split(separator: "\n").last ?? ""), shown.prompt)
        }
        #expect(asked(.passcode) == ("Enter its passcode (6 digits).", "Passcode:"))
        #expect(asked(.recoveryCode) == ("Enter one of its recovery codes (XXXX-XXXX-…).", "Recovery code:"))
        #expect(
            asked(.passcodeOrRecoveryCode) == (
                "Enter its passcode (6 digits), or one of its recovery codes.", "Passcode:"
            ))
        #expect(asked(.loginPassword) == ("Enter your login password.", "Login password:"))
        #expect(
            asked(.securityKeyPasscode(slotLabel: "yubi\u{1B}"))
                == (
                    "Enter the passcode that goes with the security key “yubi\\u001b” (6 digits); the key is asked for next.",
                    "Passcode:"
                ))
    }

    @Test func theSecurityKeyQuestionsNameTheKeyAndThePINsTriesLeft() {
        let touch = text(
            .touchSecurityKey(collection: CollectionID("phone"), label: "", slotLabel: "yubikey", instead: nil))
        #expect(
            touch.description
                == "/usr/bin/app wants to unlock the collection “phone”.\nTouch the security key “yubikey” now.")
        func pin(_ retries: Int?) -> PinentryText {
            text(
                .securityKeyPIN(
                    collection: CollectionID("phone"), label: "Phone", slotLabel: "yubikey", retries: retries))
        }
        #expect(
            pin(1).description.hasSuffix(
                "\nEnter the PIN of the security key “yubikey” (1 try left before the key blocks it)."))
        #expect(pin(nil).description.hasSuffix("\nEnter the PIN of the security key “yubikey”."))
        #expect(pin(nil).prompt == "PIN:")
    }

    /// Labels, an executable's path and a change's words come from clients (and slot labels from a
    /// header not yet authenticated): pinentry-tty would write their control characters to the
    /// person's terminal as commands.
    @Test func everyTextFromAClientIsShownWithItsControlCharactersEscaped() {
        let shown = PinentryText(
            PromptRequest(
                purpose: .confirmChange(collection: .login, label: "L", change: "lift “x\u{1B}[2J”"),
                caller: ClientID(":1.5"), windowID: "", application: "/tmp/a\u{9B}b"))
        #expect(shown.description == "/tmp/a\\u009bb wants to lift “x\\u001b[2J”.\nAllow this change?")
        let unlock = text(.unlock(collection: .login, label: "evil\u{1B}]0;t\u{7}\nline"))
        #expect(
            unlock.description.hasPrefix(
                "/usr/bin/app wants to unlock the collection “evil\\u001b]0;t\\u0007\\nline”.\n"))
    }
}
