// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

@testable import PuffService

/// A collection's `locked_search` (issue 24 item 6): what search finds while it is locked, and
/// what its files give a thief (T), per mode.
struct LockedSearchTests {
    static let query: Attributes = ["user": "alice"]

    /// A collection `Mail` in `mode` holding one item `user=alice`, and a second sharing the value.
    static func mail(_ mode: LockedSearch) async throws -> (Fixture, CollectionID, ItemID) {
        let fixture = try await Fixture.persistent()
        let id = try await fixture.service.createCollection(
            label: "Mail", passcode: Fixture.passcode("mail passcode"), isPrivate: false, isHidden: false,
            lockedSearch: mode)
        let item = try await fixture.store(["user": "alice", "service": "imap"], label: "IMAP", in: id)
        try await fixture.store(["user": "alice", "service": "smtp"], label: "SMTP", in: id)
        return (fixture, id, item)
    }

    /// The thief's attack on the stored files alone: takes every index key found in the clear in
    /// a header of the vault and looks for the tag of the guessed pair `user=alice` in the
    /// collection's records; also counts tags that two records share (equal values linked
    /// without any key). Returns the records the guess confirmed and the shared tags.
    static func thiefGuesses(_ fixture: Fixture, space: SpaceID) async throws -> (confirmed: Int, shared: Int) {
        var keys: [[UInt8]] = []
        for other in try await fixture.storage.spaces() {
            if let key = try await fixture.header(of: other).indexKey { keys.append(key) }
        }
        let records = try await fixture.parsedRecords(of: space)
        var confirmed = 0
        for key in keys {
            let index = AttributeIndex(hasher: try KeyedHash(key: SecureBytes(unwipedCopyOf: key)))
            let guess = index.tags(of: AttributeList(["user": "alice"])).prefix(16)
            confirmed +=
                records.filter { record in
                    stride(from: 0, to: record.tags.count, by: 16).contains {
                        Array(record.tags[$0..<$0 + 16]) == Array(guess)
                    }
                }.count
        }
        var seen: [[UInt8]: Int] = [:]
        for record in records {
            for start in stride(from: 0, to: record.tags.count, by: 16) {
                seen[Array(record.tags[start..<start + 16]), default: 0] += 1
            }
        }
        return (confirmed, seen.values.filter { $0 > 1 }.count)
    }

    @Test func withAlwaysTheThiefConfirmsAGuessedValueAndLinksEqualOnesFromTheFilesAlone() async throws {
        let (fixture, id, _) = try await Self.mail(.always)
        let found = try await Self.thiefGuesses(fixture, space: try await fixture.space(of: id))
        #expect(found.confirmed == 2, "the attack works where the key is in the clear: the test can fail")
        #expect(found.shared >= 1)
    }

    @Test(arguments: [LockedSearch.afterUnlock, .never])
    func withoutAlwaysNoVaultFileHoldsAnIndexKeyOrATagToConfirmOrLinkAValue(mode: LockedSearch) async throws {
        let (fixture, id, _) = try await Self.mail(mode)
        let space = try await fixture.space(of: id)
        #expect(try await fixture.header(of: space).indexKey == nil)
        #expect(try await fixture.header(of: space).lockedSearch == mode)
        let found = try await Self.thiefGuesses(fixture, space: space)
        #expect(found.confirmed == 0)
        #expect(found.shared == 0)
        #expect(try await fixture.parsedRecords(of: space).allSatisfy { $0.tags.isEmpty })
    }

    @Test func afterUnlockFindsNothingAfterARestartUntilTheFirstUnlockThenKeepsFindingAcrossLock() async throws {
        let (fixture, id, item) = try await Self.mail(.afterUnlock)
        #expect(try await fixture.service.searchItems(Self.query, in: id).count == 2, "unlocked, it is searched")
        try await fixture.service.lock([id])
        #expect(try await fixture.service.searchItems(Self.query, in: id).count == 2, "kept across Lock")

        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(Self.query, in: id) == [], "no index before the first unlock")
        #expect(try await restarted.service.searchItems(Self.query).locked == [])
        #expect(try await restarted.service.itemIDs(in: id).contains(item), "the items are still listed")
        try await restarted.unlock(id, "mail passcode")
        try await restarted.service.lock([id])
        #expect(try await restarted.service.searchItems(Self.query).locked.contains(item))
        #expect(try await restarted.service.searchItems(["user": "alice", "service": "imap"], in: id) == [item])
        #expect(try await restarted.service.searchItems(["user": "bob"], in: id) == [])
    }

    @Test func neverFindsTheItemsOnlyWhileTheCollectionIsUnlocked() async throws {
        let (fixture, id, item) = try await Self.mail(.never)
        #expect(try await fixture.service.searchItems(Self.query).unlocked.contains(item))
        try await fixture.service.lock([id])
        #expect(try await fixture.service.searchItems(Self.query).locked == [])
        let restarted = try await fixture.restarted()
        #expect(try await restarted.service.searchItems(Self.query).locked == [])
        try await restarted.unlock(id, "mail passcode")
        #expect(try await restarted.service.searchItems(Self.query).unlocked.contains(item))
    }

    @Test func aPrivateCollectionCannotAskForLockedSearch() async throws {
        let fixture = try await Fixture.persistent()
        await #expect(
            throws: ServiceError.invalidArgument("a private collection has no blind index: its locked search is never")
        ) {
            _ = try await fixture.service.createCollection(
                label: "Diary", passcode: Fixture.passcode("diary passcode"), isPrivate: true, isHidden: false,
                lockedSearch: .always)
        }
    }
}
