// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A client's `Unlock` prompt offers a fido2+passcode slot too (issue 26 item 4, design §4): its
/// passcode is asked first, naming the key, then the touch question races the key; only both
/// open it, and a wrong passcode with a good touch is a wrong passcode like any other: counted,
/// delayed, asked again.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct UnlockPromptKeyPasscodeTests {
    typealias Prompt = UnlockPromptSlotTests
    static let words = "key and words"

    /// `Mail` with a fido2+passcode slot “yubikey” (passcode ``words``) on `keys`; with
    /// `onlyTheKey` its passcode slot removed, so nothing typed alone opens it.
    static func mail(
        _ script: [ScriptedPrompter.Step], keys: FakeSecurityKeys, onlyTheKey: Bool = false
    ) async throws -> (Fixture, CollectionID) {
        try await Prompt.mail(script, keys: keys) { fixture, id in
            try await Prompt.add(
                .fido2Passcode, SlotOptions(label: "yubikey", withPasscode: Fixture.passcode(words)), to: id,
                in: fixture)
            if onlyTheKey {
                try await fixture.service.removeSlot(
                    1, from: id, proof: .typed(Fixture.passcode(Prompt.passcode)), caller: Prompt.caller)
            }
        }
    }

    static func passcodeQuestion(_ id: CollectionID) -> PromptRequest.Purpose {
        .unlock(collection: id, label: "Mail", slot: .securityKeyPasscode(slotLabel: "yubikey"))
    }

    static func savedFailures(_ id: CollectionID, _ fixture: Fixture) async throws -> Int? {
        try await fixture.storage.passcodeAttempts().flatMap(PasscodeAttempts.init(decoding:))?.failures[id.rawValue]?
            .count
    }

    @Test func itsPasscodeIsAskedFirstThenATouchOpensTheCollection() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.reply(.passcode(Fixture.passcode(Self.words))), .hold], keys: keys)
        keys.setTouch(.wait)
        _ = try await Prompt.startUnlock(id, in: fixture)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await poll(limit: HangGuard.step) { keys.waitingForTouch == 1 })
        #expect(try await Prompt.locked(id, fixture), "the passcode alone opened it")
        keys.touch()
        #expect(try await !Prompt.completion(of: fixture))
        #expect(try await !Prompt.locked(id, fixture))
        let requests = await fixture.prompter.requests
        #expect(requests.map(\.purpose) == [Self.passcodeQuestion(id), Prompt.touchQuestion(id)])
        #expect(requests.first?.policy != nil, "the passcode question states the policy")
        #expect(keys.calls.lastAskedPresence)
    }

    @Test func aWrongPasscodeWithAGoodTouchOpensNothingCountsAndIsAskedAgain() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail(
            [
                .reply(.passcode(Fixture.passcode("other words"))), .hold,
                .reply(.passcode(Fixture.passcode(Self.words))), .hold,
            ], keys: keys)
        _ = try await Prompt.startUnlock(id, in: fixture)
        // The second try waits the first one's delay on the manual clock, beside the prompt's timer.
        #expect(await fixture.clock.waitForSleepers(2, limit: HangGuard.step))
        #expect(try await Self.savedFailures(id, fixture) == 1, "the wrong passcode was not counted")
        #expect(try await Prompt.locked(id, fixture))
        fixture.clock.advance(by: .seconds(1))
        #expect(try await !Prompt.completion(of: fixture))
        #expect(try await !Prompt.locked(id, fixture))
        let requests = await fixture.prompter.requests
        #expect(
            requests.map(\.purpose) == [
                Self.passcodeQuestion(id), Prompt.touchQuestion(id), Self.passcodeQuestion(id),
                Prompt.touchQuestion(id),
            ])
        #expect(
            requests.map(\.error) == [
                nil, nil, "Wrong passcode; the next try is accepted in 0.5 s, try again (attempt 2 of 3)", nil,
            ])
        #expect(keys.calls.assertions == 3, "the enrolment's, then one touch per try")
        #expect(try await Self.savedFailures(id, fixture) == nil, "the right passcode clears the count")
    }

    @Test func dismissingThePasscodeQuestionAsksNoTouchAndLeavesItLocked() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.reply(.dismissed)], keys: keys)
        let enrolled = keys.calls.assertions
        _ = try await Prompt.startUnlock(id, in: fixture)
        #expect(try await Prompt.completion(of: fixture))
        #expect(try await Prompt.locked(id, fixture))
        #expect(await fixture.prompter.requests.map(\.purpose) == [Self.passcodeQuestion(id)])
        #expect(keys.calls.assertions == enrolled, "no touch asked")
    }

    @Test func dismissingTheTouchQuestionCancelsTheKeyAndCountsNoWrongPasscode() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail(
            [.reply(.passcode(Fixture.passcode(Self.words))), .hold], keys: keys, onlyTheKey: true)
        keys.setTouch(.wait)
        _ = try await Prompt.startUnlock(id, in: fixture)
        #expect(await fixture.prompter.waitUntilHolding(1))
        #expect(await poll(limit: HangGuard.step) { keys.waitingForTouch == 1 })
        await fixture.prompter.release(with: .dismissed)
        #expect(try await Prompt.completion(of: fixture))
        #expect(keys.waitingForTouch == 0, "the key's wait was cancelled")
        #expect(try await Prompt.locked(id, fixture))
        #expect(try await Self.savedFailures(id, fixture) == nil)
        #expect(
            await fixture.prompter.requests.map(\.purpose) == [
                Self.passcodeQuestion(id), Prompt.touchQuestion(id, instead: nil),
            ])
    }

    @Test func withTheKeysPINTooAWrongPINAsksThePINAgainButNotThePasscodeAndCountsNothing() async throws {
        let keys = FakeSecurityKeys(pin: "4711")
        let (fixture, id) = try await Prompt.mail(
            [
                .reply(.passcode(Fixture.passcode(Self.words))), .reply(.passcode(Fixture.passcode("1234"))), .hold,
                .reply(.passcode(Fixture.passcode("4711"))), .hold,
            ], keys: keys
        ) { fixture, id in
            try await Prompt.add(
                .fido2Passcode,
                SlotOptions(
                    label: "yubikey", withPasscode: Fixture.passcode(Self.words), pin: Fixture.passcode("4711")),
                to: id, in: fixture)
        }
        _ = try await Prompt.startUnlock(id, in: fixture)
        #expect(try await !Prompt.completion(of: fixture))
        #expect(try await !Prompt.locked(id, fixture))
        let pin = { (retries: Int?) in
            PromptRequest.Purpose.securityKeyPIN(collection: id, label: "Mail", slotLabel: "yubikey", retries: retries)
        }
        let requests = await fixture.prompter.requests
        #expect(
            requests.map(\.purpose) == [
                Self.passcodeQuestion(id), pin(nil), Prompt.touchQuestion(id), pin(7), Prompt.touchQuestion(id),
            ])
        #expect(requests.map(\.error) == [nil, nil, nil, "Wrong PIN, try again", nil])
        #expect(try await Self.savedFailures(id, fixture) == nil, "a wrong PIN is the key's to count")
    }

    @Test func aTouchAloneSlotIsOfferedBeforeTheOneThatAlsoNeedsAPasscode() async throws {
        let keys = FakeSecurityKeys()
        let (fixture, id) = try await Self.mail([.hold], keys: keys)
        try await fixture.service.unlock(id, passcode: Fixture.passcode(Prompt.passcode))
        try await Prompt.add(.fido2, SlotOptions(label: "yubikey"), to: id, in: fixture)
        try await fixture.service.lock([id])
        _ = fixture.recorder.drain()
        _ = try await Prompt.startUnlock(id, in: fixture)
        #expect(try await !Prompt.completion(of: fixture))
        #expect(try await !Prompt.locked(id, fixture))
        #expect(await fixture.prompter.requests.map(\.purpose) == [Prompt.touchQuestion(id)])
    }
}
