// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A client's `Unlock` prompt asks as little as the collection's slots allow (issue 26,
/// docs/design/unlock-slots.md §3 "Unlock order"): a tpm2 slot opens it with no question; a fido2
/// slot whose key is present shows "touch your security key" while the key waits, and the first
/// of the touch and the person's answer ends the other; then the passcode, named for what opens it.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct UnlockPromptSlotTests {
    static let caller = Caller(Fixture.alice, executable: "/usr/bin/puffctl")
    static let passcode = "mail passcode"

    /// A persistent vault with `Mail` (passcode ``passcode``), its prompter answering `script`,
    /// after `prepare` added slots to it; locked, and the events so far drained.
    static func mail(
        _ script: [ScriptedPrompter.Step], tpm: FakeTPM? = nil, keys: FakeSecurityKeys? = nil,
        prepare: (Fixture, CollectionID) async throws -> Void = { _, _ in }
    ) async throws -> (Fixture, CollectionID) {
        let fixture = try await Fixture(
            script: script, mode: .persistent(kdf: .interactive), tpm: tpm, securityKeys: keys)
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        let id = try await fixture.makeCollection("Mail", passcode: passcode)
        try await prepare(fixture, id)
        try await fixture.service.lock([id])
        _ = fixture.recorder.drain()
        return (fixture, id)
    }

    static func add(
        _ kind: KeySlot.Kind, _ options: SlotOptions = SlotOptions(), to id: CollectionID, in fixture: Fixture
    )
        async throws
    {
        _ = try await fixture.service.addSlot(
            to: id, kind: kind, options: options, proof: .typed(Fixture.passcode(passcode)), caller: caller)
    }

    /// Starts an `Unlock` prompt for `id` as a client would.
    static func startUnlock(_ id: CollectionID, in fixture: Fixture) async throws -> PromptID {
        let result = try await fixture.service.unlock([Fixture.reference(id)], client: Fixture.alice)
        let prompt = try #require(result.prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice, application: "/usr/bin/app")
        return prompt
    }

    /// Waits for the prompt's completion; whether it was dismissed.
    static func completion(of fixture: Fixture) async throws -> Bool {
        let done = try #require(
            await fixture.recorder.waitFor(limit: HangGuard.driver) {
                if case .promptCompleted = $0 { true } else { false }
            })
        guard case .promptCompleted(_, _, let dismissed, _) = done else { return true }
        return dismissed
    }

    static func locked(_ id: CollectionID, _ fixture: Fixture) async throws -> Bool {
        try await fixture.service.collectionInfo(id).isLocked
    }

    static func touchQuestion(_ id: CollectionID, instead: TypedSlot? = .passcode) -> PromptRequest.Purpose {
        .touchSecurityKey(collection: id, label: "Mail", slotLabel: "yubikey", instead: instead)
    }

    @Test func aTPMSlotOpensTheCollectionWithoutAQuestion() async throws {
        let (fixture, id) = try await Self.mail([], tpm: FakeTPM()) { fixture, id in
            try await Self.add(.tpm2, SlotOptions(label: "laptop"), to: id, in: fixture)
        }
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await !Self.completion(of: fixture))
        #expect(try await !Self.locked(id, fixture))
        #expect(await fixture.prompter.requests.isEmpty)
    }

    @Test func aTouchOpensTheCollectionAndClosesTheTouchQuestion() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.hold], keys: keys) { fixture, id in
            try await Self.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        }
        keys.setTouch(.wait)
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await fixture.prompter.requests.map(\.purpose) == [Self.touchQuestion(id)])
        #expect(try await Self.locked(id, fixture))
        #expect(await poll(limit: HangGuard.step) { keys.waitingForTouch == 1 })
        keys.touch()
        #expect(try await !Self.completion(of: fixture))
        #expect(try await !Self.locked(id, fixture))
        #expect(await fixture.prompter.waitForCancellations(1), "the touch question is closed")
        #expect(keys.calls.lastAskedPresence)
    }

    @Test func dismissingTheTouchQuestionCancelsTheKeysWaitAndLeavesTheCollectionLocked() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.hold], keys: keys) { fixture, id in
            try await Self.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        }
        keys.setTouch(.wait)
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await poll(limit: HangGuard.step) { keys.waitingForTouch == 1 })
        await fixture.prompter.release(with: .dismissed)
        #expect(try await Self.completion(of: fixture))
        #expect(keys.waitingForTouch == 0, "the key's wait was cancelled")
        #expect(try await Self.locked(id, fixture))
        #expect(await fixture.prompter.requests.count == 1, "no passcode asked after a dismissal")
    }

    @Test func typingInsteadCancelsTheKeysWaitAndAsksForThePasscode() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail(
            [.hold, .reply(.passcode(Fixture.passcode(Self.passcode)))], keys: keys
        ) { fixture, id in
            try await Self.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        }
        keys.setTouch(.wait)
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await poll(limit: HangGuard.step) { keys.waitingForTouch == 1 })
        await fixture.prompter.release(with: .typeInstead)
        #expect(try await !Self.completion(of: fixture))
        #expect(keys.waitingForTouch == 0)
        #expect(try await !Self.locked(id, fixture))
        #expect(
            await fixture.prompter.requests.map(\.purpose) == [
                Self.touchQuestion(id), .unlock(collection: id, label: "Mail", slot: .passcode),
            ])
    }

    @Test func withNoKeyPresentThePasscodeIsAskedWithNoTouchQuestion() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.reply(.passcode(Fixture.passcode(Self.passcode)))], keys: keys) {
            fixture, id in
            try await Self.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        }
        keys.setPresent(false)
        let enrolled = keys.calls.assertions
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await !Self.completion(of: fixture))
        #expect(await fixture.prompter.requests.map(\.purpose) == [.unlock(collection: id, label: "Mail")])
        #expect(keys.calls.assertions == enrolled, "only the silent probe")
    }

    @Test func aKeyThatRefusesLeadsToThePasscodeWithTheReason() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail(
            [.reply(.confirmed), .reply(.passcode(Fixture.passcode(Self.passcode)))], keys: keys
        ) { fixture, id in
            try await Self.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        }
        keys.setTouch(.refuse)
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await !Self.completion(of: fixture))
        let requests = await fixture.prompter.requests
        #expect(requests.map(\.purpose) == [Self.touchQuestion(id), .unlock(collection: id, label: "Mail")])
        #expect(
            requests.last?.error
                == "The security key “yubikey” did not open it: the security key was not touched, or the person refused on it"
        )
    }

    @Test func aPINSlotAsksThePINAgainAfterAWrongOneWithTheTriesLeft() async throws {
        let keys = FakeSecurityKeys(pin: "4711")
        let (fixture, id) = try await Self.mail(
            [.reply(.passcode(Fixture.passcode("1234"))), .hold, .reply(.passcode(Fixture.passcode("4711"))), .hold],
            keys: keys
        ) { fixture, id in
            try await Self.add(
                .fido2, SlotOptions(label: "yubikey", pin: Fixture.passcode("4711")), to: id, in: fixture)
        }
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await !Self.completion(of: fixture))
        #expect(try await !Self.locked(id, fixture))
        let requests = await fixture.prompter.requests
        #expect(
            requests.map(\.purpose) == [
                .securityKeyPIN(collection: id, label: "Mail", slotLabel: "yubikey", retries: nil),
                Self.touchQuestion(id),
                .securityKeyPIN(collection: id, label: "Mail", slotLabel: "yubikey", retries: 7),
                Self.touchQuestion(id),
            ])
        #expect(requests.map(\.error) == [nil, nil, "Wrong PIN, try again", nil])
        #expect(keys.calls.lastHadPIN)
    }

    @Test func theQuestionNamesARecoveryCodeBesideThePasscode() async throws {
        let (fixture, id) = try await Self.mail([.reply(.passcode(Fixture.passcode(Self.passcode)))]) { fixture, id in
            try await Self.add(.recovery, to: id, in: fixture)
        }
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await !Self.completion(of: fixture))
        let request = try #require(await fixture.prompter.requests.first)
        #expect(request.purpose == .unlock(collection: id, label: "Mail", slot: .passcodeOrRecoveryCode))
        #expect(request.policy != nil)
    }

    @Test func aCollectionOnlyARecoveryCodeOpensAsksForOneWithoutThePolicy() async throws {
        let (fixture, id) = try await Self.mail([.reply(.dismissed)]) { fixture, id in
            try await Self.add(.recovery, to: id, in: fixture)
            try await fixture.service.removeSlot(
                1, from: id, proof: .typed(Fixture.passcode(Self.passcode)), caller: Self.caller)
        }
        _ = try await Self.startUnlock(id, in: fixture)
        #expect(try await Self.completion(of: fixture))
        let request = try #require(await fixture.prompter.requests.first)
        #expect(request.purpose == .unlock(collection: id, label: "Mail", slot: .recoveryCode))
        #expect(request.policy == nil)
    }
}
