// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The login slot (issue 26, docs/design/unlock-slots.md §3): the PAM module's first login makes
/// `login` with a login slot; its login password opens `login` through it while a passcode slot
/// keeps a passcode of its own; a change of the login password (chauthtok) wraps the same master
/// key for the new password in that slot alone (no re-key), and a `login` made before slots gets
/// the passcode slot the old password opens rewritten as its login slot.
@Suite struct LoginSlotTests {
    static let loginPassword = "login pw"
    static let newPassword = "new login pw"
    static let passcode = "own passcode"

    static func text(_ text: String) -> SecureBytes { Fixture.passcode(text) }

    /// A vault whose `login` the first login made, holding one item, with a passcode slot of
    /// its own added, locked.
    static func loginWithPasscodeSlot() async throws -> (Fixture, ItemID) {
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive))
        #expect(try await fixture.service.login(password: text(loginPassword)) == .created)
        let item = try await fixture.store(["service": "mail"], secret: "mail secret", in: .login)
        _ = try await fixture.service.addSlot(
            to: .login, kind: .passcode, options: SlotOptions(label: "typed", newPasscode: text(passcode)),
            proof: .typed(text(loginPassword)), caller: SlotUnlockTests.caller)
        try await fixture.service.lock([.login])
        return (fixture, item)
    }

    @Test func theFirstLoginMakesLoginWithOneLoginSlotAndNoPasscodeSlot() async throws {
        let fixture = try await Fixture(mode: .persistent(kdf: .interactive))
        #expect(try await fixture.service.login(password: Self.text(Self.loginPassword)) == .created)
        #expect(try await fixture.service.slots(of: .login) == [SlotInfo(id: 1, kind: .login, label: "login")])
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        #expect(header.version == 3 && header.slots.map(\.kind) == [.login])
        // Typed at a prompt or `puffctl unlock login`, the login password opens it too.
        try await fixture.service.lock([.login])
        try await fixture.unlock(.login, Self.loginPassword)
        #expect(try await fixture.service.collectionInfo(.login).isLocked == false)
    }

    @Test func theLoginPasswordOpensLoginThroughItsLoginSlotWhileThePasscodeSlotHasAnotherPasscode() async throws {
        let (fixture, item) = try await Self.loginWithPasscodeSlot()
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        #expect(header.slots.map(\.kind) == [.login, .passcode])
        // Both typed slots share one salt and cost: one Argon2id run tries them both.
        #expect(header.slots[0].parameters.typed == header.slots[1].parameters.typed)
        let before = await fixture.service.keyDerivations
        #expect(try await fixture.service.login(password: Self.text(Self.loginPassword)) == .unlocked)
        #expect(await fixture.service.keyDerivations == before + 1)
        #expect(try await fixture.holds(item, "mail secret"))
        // The passcode slot's own passcode opens it too, typed or handed over as a login password.
        try await fixture.service.lock([.login])
        try await fixture.unlock(.login, Self.passcode)
        try await fixture.service.lock([.login])
        #expect(try await fixture.service.login(password: Self.text(Self.passcode)) == .unlocked)
    }

    @Test func aLoginPasswordChangeRewrapsOnlyTheLoginSlotWithoutAReKey() async throws {
        let (fixture, item) = try await Self.loginWithPasscodeSlot()
        let space = try await fixture.space(of: .login)
        let before = try await fixture.header(of: space)
        let records = await fixture.storage.records(of: space)
        #expect(
            try await fixture.service.changeLoginPassword(
                old: Self.text(Self.loginPassword), new: Self.text(Self.newPassword)) == .unlocked)
        // No re-key: the same space, master key and records.
        #expect(try await fixture.space(of: .login) == space)
        #expect(await fixture.storage.records(of: space) == records)
        let after = try await fixture.header(of: space)
        #expect(after.slots.map(\.id) == before.slots.map(\.id) && after.slots.map(\.kind) == [.login, .passcode])
        #expect(after.slots[1] == before.slots[1], "the passcode slot is untouched")
        #expect(after.slots[0].wrappedMaster != before.slots[0].wrappedMaster)
        #expect(after.slots[0].parameters == before.slots[0].parameters, "the shared salt and cost are kept")
        let master = try HeaderKeys.master(before, passcode: Self.passcode)
        #expect(try HeaderKeys.master(after, passcode: Self.newPassword).isSame(as: master))
        #expect(try HeaderKeys.master(after, passcode: Self.passcode).isSame(as: master))
        #expect(HeaderKeys.open(after, passcode: Self.loginPassword) == nil, "the old password opens no slot")
        // Through the service, after a restart: the new password and the passcode open it, the old one not.
        let restarted = try await fixture.restarted()
        let old = await restarted.failure(after: .zero) { () throws(ServiceError) in
            try await restarted.unlock(.login, Self.loginPassword)
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        let passcode = await restarted.failure(after: .milliseconds(500)) { () throws(ServiceError) in
            try await restarted.unlock(.login, Self.passcode)
        }
        #expect(passcode == nil, "the passcode slot still opens login")
        #expect(try await restarted.holds(item, "mail secret"))
        try await restarted.service.lock([.login])
        #expect(try await restarted.service.login(password: Self.text(Self.newPassword)) == .unlocked)
        let audited = try await restarted.service.auditEntries(collection: .login).entries.filter {
            $0.action == .slotAdd
        }
        #expect(audited.map(\.label).last == "login “login” (new login password)")
        #expect(audited.last?.result == .allowed)
    }

    @Test func aWrongOldLoginPasswordChangesNothing() async throws {
        let (fixture, _) = try await Self.loginWithPasscodeSlot()
        let space = try await fixture.space(of: .login)
        let before = try await fixture.header(of: space)
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            _ = try await fixture.service.changeLoginPassword(old: Self.text("a guess"), new: Self.text("chosen"))
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.header(of: space) == before)
    }

    @Test func aLoginMadeBeforeSlotsGetsItsPasscodeSlotRewrittenAsTheLoginSlotAtTheFirstChange() async throws {
        let folder = try GoldenVault.copy(GoldenVault.folder(version: 2))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let golden = GoldenVault.login.passcode
        let space = try Self.space(of: .login, in: folder)
        let headerFile = "\(folder)/\(space.hex).header"
        let journalFile = URL(fileURLWithPath: "\(folder)/\(space.hex).journal")
        let journal = try Data(contentsOf: journalFile)
        let legacy = try Self.header(headerFile)
        #expect(legacy.isLegacy && legacy.slots.map(\.kind) == [.passcode])
        try await Self.changeGoldenLoginPassword(folder: folder)
        let header = try Self.header(headerFile)
        #expect(header.version == 3)
        #expect(header.slots.map(\.kind) == [.login] && header.slots.map(\.id) == [1])
        #expect(header.slots[0].parameters.typed == legacy.slots[0].parameters.typed, "the same salt and cost")
        let master = try HeaderKeys.master(legacy, passcode: golden)
        #expect(try HeaderKeys.master(header, passcode: Self.newPassword).isSame(as: master))
        #expect(HeaderKeys.open(header, passcode: golden) == nil)
        // Not re-keyed: the journal is as it was.
        #expect(try Data(contentsOf: journalFile) == journal)
        let restarted = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        #expect(try await restarted.login(password: Self.text(Self.newPassword)) == .unlocked)
        try await GoldenVaultTests.checkContents(of: GoldenVault.login, in: restarted)
    }

    /// Opens the golden `login` in `folder` with its passcode handed over as the login password
    /// (it opens through its passcode slot), locks it, and changes the login password. The
    /// service is gone when this returns, so the folder can be opened again.
    static func changeGoldenLoginPassword(folder: String) async throws {
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        let golden = text(GoldenVault.login.passcode)
        #expect(try await service.login(password: golden) == .unlocked)
        try await service.lock([.login])
        #expect(try await service.changeLoginPassword(old: golden, new: text(newPassword)) == .unlocked)
    }

    /// The header a header file holds.
    static func header(_ path: String) throws -> VaultHeader {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return try VaultHeader(
            decoding: try ChecksummedFile.decode(file, magic: ChecksummedFile.headerMagic, name: path))
    }

    /// The space the catalog in `folder` names for `collection`.
    static func space(of collection: CollectionID, in folder: String) throws -> SpaceID {
        let path = "\(folder)/catalog"
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let catalog = try Catalog(
            decoding: try ChecksummedFile.decode(file, magic: ChecksummedFile.catalogMagic, name: path))
        return try #require(catalog.collections.first { $0.id == collection.rawValue }?.space)
    }
}
