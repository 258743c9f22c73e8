// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Prompts that set passcodes: `CreateCollection` on a vault with passcodes asks for the new
/// collection's passcode, and `ChangeWithPrompt` for the current and the new one; each new
/// passcode is checked against the policy, and a refused one is asked again with the reason.
@Suite struct PromptPurposeTests {
    /// Starts `prompt` for Alice and waits for its completion (Argon2id runs meanwhile).
    static func complete(_ prompt: PromptID, in fixture: Fixture) async throws -> ServiceEvent {
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice, application: "/usr/bin/app")
        // A prompt here is several steps (questions, Argon2id runs, a vault write) that share two
        // cores with every other suite's Argon2id: CI at load 20 took over HangGuard.step for one.
        return try #require(
            await fixture.recorder.waitFor(limit: HangGuard.driver) {
                if case .promptCompleted = $0 { true } else { false }
            })
    }

    static func answer(_ text: String) -> ScriptedPrompter.Step {
        .reply(.passcode(Fixture.passcode(text)))
    }

    @Test func createCollectionAsksForANewPasscodeAgainUntilItMeetsThePolicy() async throws {
        let fixture = try await Fixture(
            script: [Self.answer("short"), Self.answer("long enough")], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        let (collection, prompt) = try await fixture.service.createCollection(
            label: "Work", alias: "work", client: Fixture.alice)
        #expect(collection == nil)
        let done = try await Self.complete(try #require(prompt), in: fixture)
        let work = CollectionID("Work")
        #expect(
            done
                == .promptCompleted(
                    try #require(prompt), owner: Fixture.alice, dismissed: false, result: .collection(work)))
        #expect(await fixture.service.readAlias("work") == work)
        let requests = await fixture.prompter.requests
        #expect(requests.map(\.purpose) == [.create(label: "Work"), .create(label: "Work")])
        #expect(requests.map(\.policy) == [.standard, .standard])
        #expect(
            requests.map(\.error) == [nil, "The passcode must be at least 8 characters, try again (attempt 2 of 3)"])
        #expect(requests.allSatisfy { $0.purpose.asksNewPasscode && $0.application == "/usr/bin/app" })

        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.collectionInfo(work).isLocked)
        #expect(try await restarted.unlock(work, "long enough") == work)
    }

    @Test func threeRefusedPasscodesDismissTheCreationAndCreateNothing() async throws {
        let fixture = try await Fixture(
            script: [Self.answer("a"), Self.answer("b"), Self.answer("c")], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        let prompt = try #require(
            try await fixture.service.createCollection(label: "Work", alias: nil, client: Fixture.alice).prompt)
        let done = try await Self.complete(prompt, in: fixture)
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .collection(nil)))
        #expect(await fixture.prompter.requests.count == 3)
        #expect(await fixture.service.collections == [.login, .session])
    }

    @Test func createCollectionOnAVaultWithoutAPasscodeSetsTheFirstOneAndMakesLogin() async throws {
        let fixture = try await Fixture(script: [Self.answer("long enough")], mode: .persistent(kdf: .interactive))
        #expect(await !fixture.service.isInitialized)
        let prompt = try #require(
            try await fixture.service.createCollection(
                label: "Default keyring", alias: "default", client: Fixture.alice
            ).prompt)
        let done = try await Self.complete(prompt, in: fixture)
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: false, result: .collection(.login)))
        #expect(await fixture.prompter.requests.map(\.purpose) == [.create(label: "Login")])
        #expect(await fixture.service.readAlias("default") == .login)
        #expect(await fixture.service.readAlias("login") == .login)
        let restarted = try await fixture.restarted()
        #expect(try await restarted.unlock(.login, "long enough") == .login)
    }

    @Test func aDismissedCreationCompletesWithTheTypedEmptyPath() async throws {
        let fixture = try await Fixture(script: [.reply(.dismissed)], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        let prompt = try #require(
            try await fixture.service.createCollection(label: "Work", alias: nil, client: Fixture.alice).prompt)
        let done = try await Self.complete(prompt, in: fixture)
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: true, result: .collection(nil)))
    }

    @Test func changeWithPromptChecksTheCurrentPasscodeThenThePolicyOfTheNewOne() async throws {
        let fixture = try await Fixture(
            script: [
                Self.answer("999999"), Self.answer("123456"),
                Self.answer("abc123"), Self.answer("12345"), Self.answer("654321"),
            ],
            mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        let phone = try await fixture.makeCollection("Phone", passcode: "123456", policy: .digits6)
        try await fixture.service.lock([phone])
        let prompt = try await fixture.service.changePasscodePrompt(phone, client: Fixture.alice)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        // The passcode after the wrong one waits its delay on the manual clock, beside the prompt's timer.
        #expect(await fixture.clock.waitForSleepers(2, limit: HangGuard.step))
        fixture.clock.advance(by: .seconds(1))
        let done = try #require(
            await fixture.recorder.waitFor(limit: HangGuard.step) {
                if case .promptCompleted = $0 { true } else { false }
            })
        #expect(done == .promptCompleted(prompt, owner: Fixture.alice, dismissed: false, result: .none))
        let requests = await fixture.prompter.requests
        let current = PromptRequest.Purpose.currentPasscode(collection: phone, label: "Phone")
        let new = PromptRequest.Purpose.newPasscode(collection: phone, label: "Phone")
        #expect(requests.map(\.purpose) == [current, current, new, new, new])
        #expect(
            requests.map(\.error) == [
                nil, "Wrong passcode; the next try is accepted in 0.5 s, try again (attempt 2 of 3)", nil,
                "The passcode must be 6 digits, try again (attempt 2 of 3)",
                "The passcode must be 6 digits, try again (attempt 3 of 3)",
            ])
        #expect(try await fixture.service.collectionInfo(phone).isLocked, "a passcode change does not unlock")
        let restarted = try await fixture.restarted()
        // The refusal is answered at once; the delay it announces applies to the next try.
        let old = await restarted.immediateAnswer { () async throws(ServiceError) in
            try await restarted.unlock(phone, "123456")
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await restarted.unlock(phone, "654321") == phone)
    }

    @Test func changeWithPromptIsRefusedForCollectionsWithoutAPasscode() async throws {
        let fixture = try await Fixture()
        let refused = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.changePasscodePrompt(.login, client: Fixture.alice)
        }
        #expect(refused == .noSuchObject)
    }
}
