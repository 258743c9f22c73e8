// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The login password, as the PAM module hands it over: the first login creates `login`; a later
/// login whose password no longer opens it (the password changed without puffd) asks once,
/// through the prompters, for the previous one and moves `login`'s login slot to the new password.
@Suite struct LoginResyncTests {
    static func answer(_ text: String) -> ScriptedPrompter.Step { .reply(.passcode(Fixture.passcode(text))) }

    @Test func theFirstLoginCreatesLoginUnderTheLoginPasswordWhateverItsLength() async throws {
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive))
        #expect(try await fixture.service.login(password: Fixture.passcode("pw")) == .created)
        #expect(await fixture.service.readAlias("default") == .login)
        #expect(try await fixture.service.collectionInfo(.login).isLocked == false)
        let empty = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.login(password: SecureBytes.empty)
        }
        #expect(empty == .invalidArgument("an empty login password opens nothing"))
    }

    @Test func aLoginPasswordThatMissedAChangeAsksForThePreviousOneAndMovesLoginToIt() async throws {
        let fixture = try await Fixture(
            script: [Self.answer("old login pw")], mode: .persistent(kdf: .interactive))
        #expect(try await fixture.service.login(password: Fixture.passcode("old login pw")) == .created)
        let space = try await fixture.space(of: .login)
        try await fixture.service.lock([.login])
        async let outcome = fixture.service.login(password: Fixture.passcode("new login pw"))
        // The refusal waits its delay on the manual clock.
        #expect(await fixture.clock.waitForSleepers(1, limit: HangGuard.step))
        fixture.clock.advance(by: .seconds(1))
        #expect(try await outcome == .wrongPasscode)
        // Required: without it the restart below would wait forever on a wrong-password delay.
        // The hold point is the re-sync's last log line: the answer opens login before the new
        // header is written.
        try #require(
            await poll(limit: HangGuard.step) {
                fixture.logs.lines.contains { $0.contains("login now opens with the new login password") }
            }, "the previous password, answered, moves login to the new one")
        #expect(try await fixture.service.collectionInfo(.login).isLocked == false, "and opens it")
        #expect(
            await fixture.prompter.requests.map(\.purpose) == [
                // Locked, login shows its id as its label, as after a restart.
                .previousLoginPassword(collection: .login, label: "login")
            ])
        // The answer moved the login slot alone: the same space (no re-key), one login slot.
        #expect(try await fixture.space(of: .login) == space)
        let header = try await fixture.header(of: space)
        #expect(header.slots.map(\.kind) == [.login])
        #expect(HeaderKeys.open(header, passcode: "new login pw") != nil)
        #expect(HeaderKeys.open(header, passcode: "old login pw") == nil)
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.login(password: Fixture.passcode("new login pw")) == .unlocked)
    }
}
