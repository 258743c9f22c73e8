// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// `puffctl passwd login` proved by the login password (docs/pam.md "The login slot"): the re-key
/// moves the login slot that proved it to the password being set, so the old login password opens
/// nothing afterwards. The path that needs it: the login password changed while puffd did not
/// run (or the re-sync question went unanswered), the log said to run `puffctl passwd login`,
/// and the person typed the previous login password, then the new one.
@Suite struct LoginRekeyTests {
    static let oldPassword = "old login pw"
    static let newPassword = "new login pw"

    static func text(_ text: String) -> SecureBytes { Fixture.passcode(text) }

    /// A vault whose `login` the first login made under the old password, holding one item,
    /// after a login with the new password that did not open it and whose re-sync question was
    /// dismissed: locked, its login slot still under the old password.
    static func missedChange() async throws -> (Fixture, ItemID) {
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive))
        #expect(try await fixture.service.login(password: text(oldPassword)) == .created)
        let item = try await fixture.store(["service": "mail"], secret: "mail secret", in: .login)
        try await fixture.service.lock([.login])
        #expect(try await fixture.service.login(password: text(newPassword)) == .wrongPasscode)
        // Required: the re-key below must not race the re-sync.
        try #require(
            await poll(limit: HangGuard.step) {
                fixture.logs.lines.contains { $0.contains("run: puffctl passwd login") }
            }, "the dismissed re-sync question leaves login under the old password")
        // The wrong password's delay is over before the re-key is tried.
        fixture.clock.advance(by: .seconds(60))
        return (fixture, item)
    }

    @Test func aRekeyProvedByTheOldLoginPasswordAfterAMissedChangeMovesTheLoginSlotToTheNewOne() async throws {
        let (fixture, item) = try await Self.missedChange()
        try await fixture.service.changePasscode(
            of: .login, old: Self.text(Self.oldPassword), new: Self.text(Self.newPassword))
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        // The login slot took the new password; no passcode slot was made beside it.
        #expect(header.slots.map(\.kind) == [.login] && header.slots.map(\.id) == [1])
        #expect(HeaderKeys.open(header, passcode: Self.oldPassword) == nil, "the old login password opens no slot")
        #expect(HeaderKeys.open(header, passcode: Self.newPassword) != nil)
        // After a restart: the old password opens nothing, typed or handed over by the module;
        // the new one opens login at the next login with no question.
        let restarted = try await fixture.restarted()
        let typed = await restarted.failure(after: .zero) { () throws(ServiceError) in
            try await restarted.unlock(.login, Self.oldPassword)
        }
        #expect(typed == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        let handed = await restarted.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await restarted.service.unlock(.login, with: .login(Self.text(Self.oldPassword)))
        }
        #expect(handed == .wrongPasscode(PasscodeRetry(attempt: 2, delay: .seconds(1))))
        restarted.clock.advance(by: .seconds(60))
        #expect(try await restarted.service.login(password: Self.text(Self.newPassword)) == .unlocked)
        #expect(try await restarted.holds(item, "mail secret"))
        #expect(await restarted.prompter.requests.isEmpty, "no re-sync question")
    }

    @Test func aPasscodeSlotOfItsOwnIsListedWhenTheLoginPasswordProvesTheRekey() async throws {
        let (fixture, item) = try await LoginSlotTests.loginWithPasscodeSlot()
        let space = try await fixture.space(of: .login)
        let before = try await fixture.header(of: space)
        // Its passcode is not at hand: the login password proved the change.
        let refused = await serviceError { () throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: .login, old: LoginSlotTests.text(LoginSlotTests.loginPassword),
                new: LoginSlotTests.text(LoginSlotTests.newPassword))
        }
        #expect(refused == .wouldDropSlots([SlotInfo(id: 2, kind: .passcode, label: "typed")]))
        #expect(try await fixture.header(of: space) == before, "nothing changed")
        try await fixture.service.changePasscode(
            of: .login, proof: .typed(LoginSlotTests.text(LoginSlotTests.loginPassword)),
            new: LoginSlotTests.text(LoginSlotTests.newPassword), options: RekeyOptions(dropSlots: true))
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        #expect(header.slots.map(\.kind) == [.login])
        #expect(HeaderKeys.open(header, passcode: LoginSlotTests.loginPassword) == nil)
        #expect(HeaderKeys.open(header, passcode: LoginSlotTests.passcode) == nil)
        try await fixture.service.lock([.login])
        #expect(try await fixture.service.login(password: LoginSlotTests.text(LoginSlotTests.newPassword)) == .unlocked)
        #expect(try await fixture.holds(item, "mail secret"))
    }

    @Test func aRekeyProvedByThePasscodeStillSetsThePasscodeSlotAndKeepsTheLoginSlotWithItsPassword() async throws {
        let (fixture, _) = try await LoginSlotTests.loginWithPasscodeSlot()
        try await fixture.service.changePasscode(
            of: .login, proof: .typed(LoginSlotTests.text(LoginSlotTests.passcode)),
            new: LoginSlotTests.text("another passcode"),
            options: RekeyOptions(loginPassword: LoginSlotTests.text(LoginSlotTests.loginPassword)))
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        #expect(header.slots.map(\.kind) == [.login, .passcode])
        let login = try #require(HeaderKeys.open(header, passcode: LoginSlotTests.loginPassword))
        let passcode = try #require(HeaderKeys.open(header, passcode: "another passcode"))
        #expect(login.master.isSame(as: passcode.master))
        #expect(HeaderKeys.open(header, passcode: LoginSlotTests.passcode) == nil)
    }
}
