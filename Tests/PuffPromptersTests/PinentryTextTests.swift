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
}
