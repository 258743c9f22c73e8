// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

@testable import PuffService

/// Changing a collection's `locked_search` (issue 24 item 6): the passcode is the consent, the
/// header and the journal are rewritten, and each change is audited.
struct LockedSearchChangeTests {
    static let query = LockedSearchTests.query
    static let caller = Caller(Fixture.alice, executable: "/usr/bin/puffctl")

    @Test func leavingAlwaysDestroysTheKeyAndTheTagsSoTheFilesNoLongerConfirmAGuess() async throws {
        let (fixture, id, item) = try await LockedSearchTests.mail(.always)
        let space = try await fixture.space(of: id)
        try await fixture.service.lock([id])
        try await fixture.service.setLockedSearch(
            .afterUnlock, of: id, passcode: Fixture.passcode("mail passcode"), caller: Self.caller)
        #expect(try await fixture.header(of: space).indexKey == nil)
        #expect(try await fixture.header(of: space).lockedSearch == .afterUnlock)
        let found = try await LockedSearchTests.thiefGuesses(fixture, space: space)
        #expect(found.confirmed == 0 && found.shared == 0)
        #expect(try await fixture.service.searchItems(Self.query, in: id).contains(item), "unlocked by the change")
        try await fixture.service.lock([id])
        #expect(try await fixture.service.searchItems(Self.query).locked.contains(item), "after-unlock: kept")

        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(Self.query).locked == [])
        try await restarted.unlock(id, "mail passcode")
        #expect(try await restarted.holds(item, "s3cret"))
        #expect(try await restarted.service.vaultStatus.collections.first { $0.id == id.rawValue }?.damage == "")
    }

    @Test func goingToAlwaysPutsAFreshKeyInTheClearAndTagsEveryItemSoARestartFindsThemLocked() async throws {
        let (fixture, id, item) = try await LockedSearchTests.mail(.never)
        let space = try await fixture.space(of: id)
        try await fixture.service.setLockedSearch(
            .always, of: id, passcode: Fixture.passcode("mail passcode"), caller: Self.caller)
        let header = try await fixture.header(of: space)
        #expect(header.lockedSearch == .always && header.indexKey?.count == 32)
        #expect(try await LockedSearchTests.thiefGuesses(fixture, space: space).confirmed == 2)
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(Self.query).locked.contains(item))
        try await restarted.unlock(id, "mail passcode")
        #expect(try await restarted.holds(item, "s3cret"))
        #expect(try await restarted.service.vaultStatus.collections.first { $0.id == id.rawValue }?.damage == "")
        #expect(try await restarted.service.searchItems(["service": "imap"], in: id) == [item])
    }

    /// A crash between the two writes of a change leaves a journal without tags beside the
    /// `always` header (leaving `always`: the journal is written first; going to it: the header
    /// first). That state is searched by nobody while locked, leaks nothing, opens without damage,
    /// and setting the mode again finishes either change.
    @Test func aCrashBetweenTheTwoWritesLeavesNothingToConfirmAndSettingAgainFinishesTheChange() async throws {
        let (fixture, id, item) = try await LockedSearchTests.mail(.always)
        let space = try await fixture.space(of: id)
        let alwaysHeader = try await fixture.storage.header(of: space)
        try await fixture.service.setLockedSearch(
            .never, of: id, passcode: Fixture.passcode("mail passcode"), caller: Self.caller)
        // The crash: the journal was written untagged, the header not yet.
        try await fixture.storage.replaceHeader(alwaysHeader, of: space)
        #expect(try await fixture.header(of: space).indexKey != nil)
        #expect(try await LockedSearchTests.thiefGuesses(fixture, space: space) == (0, 0))

        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(Self.query).locked == [])
        try await restarted.unlock(id, "mail passcode")
        #expect(try await restarted.service.vaultStatus.collections.first { $0.id == id.rawValue }?.damage == "")
        #expect(try await restarted.holds(item, "s3cret"))
        try await restarted.service.setLockedSearch(
            .always, of: id, passcode: Fixture.passcode("mail passcode"), caller: Self.caller)
        #expect(try await LockedSearchTests.thiefGuesses(fixture, space: space).confirmed == 2, "tagged again")
        let again = try await restarted.restarted()
        #expect(try await again.service.searchItems(Self.query).locked.contains(item))
    }

    @Test func aWrongPasscodeChangesNothingAndIsAuditedAsRefused() async throws {
        let (fixture, id, _) = try await LockedSearchTests.mail(.never)
        let space = try await fixture.space(of: id)
        let before = try await fixture.storage.header(of: space)
        let error = await fixture.failure(after: .zero) { () throws(ServiceError) in
            try await fixture.service.setLockedSearch(
                .always, of: id, passcode: Fixture.passcode("guess"), caller: Self.caller)
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.storage.header(of: space) == before)
        let entries = try await fixture.service.auditEntries(collection: id).entries
        #expect(
            entries.contains { $0.action == .lockedSearch && $0.result == .refused && $0.label == "never → always" })
    }

    @Test func everyChangeIsAuditedWithTheModesItWentBetween() async throws {
        let (fixture, id, _) = try await LockedSearchTests.mail(.always)
        for mode in [LockedSearch.never, .afterUnlock, .always] {
            try await fixture.service.setLockedSearch(
                mode, of: id, passcode: Fixture.passcode("mail passcode"), caller: Self.caller)
        }
        let entries = try await fixture.service.auditEntries(collection: id).entries.filter {
            $0.action == .lockedSearch
        }
        #expect(entries.map(\.label) == ["always → never", "never → after-unlock", "after-unlock → always"])
        #expect(entries.allSatisfy { $0.result == .allowed && $0.item == 0 })
    }

    @Test func aPrivateCollectionsLockedSearchCannotBeChanged() async throws {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.makeCollection("Diary", passcode: "diary passcode", isPrivate: true)
        await #expect(
            throws: ServiceError.invalidArgument(
                "a private collection has no blind index: its locked search is always never")
        ) {
            try await fixture.service.setLockedSearch(
                .always, of: id, passcode: Fixture.passcode("diary passcode"), caller: Self.caller)
        }
    }
}
