// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Locked search with the index key sealed by the TPM (index storage 2, `--locked-search tpm2`,
/// issue 26 item 6): search works before the unlock on the machine whose TPM sealed the key, and
/// a thief with the files has no key to confirm an attribute guess with.
@Suite struct SealedIndexTests {
    static let query: Attributes = ["service": "imap", "user": "alice"]

    /// A persistent vault with `Mail` (locked search `always`, key sealed by `tpm`) holding one
    /// item, locked.
    static func mail(_ tpm: FakeTPM) async throws -> (Fixture, CollectionID, ItemID) {
        let fixture = try await Fixture.persistent(tpm: tpm)
        let id = try await fixture.service.createCollection(
            label: "Mail", passcode: Fixture.passcode("mail passcode"), isPrivate: false, isHidden: false,
            lockedSearch: .always, indexStorage: .tpm2)
        let item = try await fixture.store(Self.query, secret: "mail secret", in: id)
        try await fixture.service.lock([id])
        return (fixture, id, item)
    }

    @Test func searchWorksBeforeTheUnlockOnTheMachineWhoseTPMSealedTheKey() async throws {
        let tpm = FakeTPM()
        let (fixture, id, item) = try await Self.mail(tpm)
        let header = try await fixture.header(of: try await fixture.space(of: id))
        #expect(header.version == 3 && header.indexStorage == .tpm2 && header.indexKey == nil)
        let restarted = try await fixture.restarted(tpm: tpm)
        #expect(try await restarted.service.searchItems(Self.query).locked == [item])
        #expect(try await restarted.service.searchItems(["service": "pop"]).locked.isEmpty)
    }

    /// Attack (thief with the files, another machine): no key in any file, so the TPM of another
    /// machine (or none) finds nothing before the unlock; the passcode opens it and search works.
    @Test func anotherTPMFindsNothingUntilThePasscodeOpensIt() async throws {
        let (fixture, id, item) = try await Self.mail(FakeTPM())
        let space = try await fixture.space(of: id)
        let header = try await fixture.header(of: space)
        // The owner's view: the key the wrap holds appears in no file of the collection.
        let master = try HeaderKeys.master(header, passcode: "mail passcode")
        let key = try header.unwrapIndexKey(master: master).unprotectedArray()
        let files = [try await fixture.storage.header(of: space)] + (await fixture.storage.records(of: space))
        #expect(files.allSatisfy { !Self.contains($0, key) }, "the index key is in no file")

        for thief in [try await fixture.restarted(tpm: FakeTPM()), try await fixture.restarted()] {
            #expect(try await thief.service.searchItems(Self.query).locked.isEmpty)
        }
        let owner = try await fixture.restarted(tpm: FakeTPM())
        try await owner.unlock(id, "mail passcode")
        #expect(try await owner.service.searchItems(Self.query).unlocked == [item])
    }

    /// Under another TPM the collection behaves as `after-unlock` until its unlock (an empty query
    /// lists none of its items either), and `status` says why.
    @Test func statusSaysWhereTheKeyLivesAndThatSearchWaitsWhenTheTPMRefused() async throws {
        let tpm = FakeTPM()
        let (fixture, id, item) = try await Self.mail(tpm)
        let sealed = try #require(await fixture.service.vaultStatus.collections.first { $0.id == id.rawValue })
        #expect(sealed.lockedSearch == "always" && sealed.indexKey == "tpm2" && !sealed.searchWaitsForUnlock)
        let login = try #require(await fixture.service.vaultStatus.collections.first { $0.id == "login" })
        #expect(login.indexKey == "clear")

        let other = try await fixture.restarted(tpm: FakeTPM())
        let waiting = try #require(await other.service.vaultStatus.collections.first { $0.id == id.rawValue })
        #expect(waiting.indexKey == "tpm2" && waiting.searchWaitsForUnlock)
        #expect(try await other.service.searchItems([:]).locked.allSatisfy { $0.collection != id })
        try await other.unlock(id, "mail passcode")
        try await other.service.lock([id])
        let unlocked = try #require(await other.service.vaultStatus.collections.first { $0.id == id.rawValue })
        #expect(!unlocked.searchWaitsForUnlock)
        #expect(try await other.service.searchItems(Self.query).locked == [item])
    }

    @Test func aCollectionMovesToTheSealedKeyAndBackWithAFreshKeyEachTime() async throws {
        let tpm = FakeTPM()
        let fixture = try await Fixture.persistent(tpm: tpm)
        let id = try await fixture.makeCollection("Mail", passcode: "mail passcode")
        let item = try await fixture.store(Self.query, secret: "mail secret", in: id)
        let space = try await fixture.space(of: id)
        let clear = try #require(try await fixture.header(of: space).indexKey)
        let caller = Caller(Fixture.alice)
        try await fixture.service.setLockedSearch(
            .always, of: id, with: .typed(Fixture.passcode("mail passcode")), caller: caller, indexStorage: .tpm2)
        let sealed = try await fixture.header(of: space)
        #expect(sealed.indexStorage == .tpm2 && sealed.indexKey == nil)
        try await fixture.service.lock([id])
        let restarted = try await fixture.restarted(tpm: tpm)
        #expect(try await restarted.service.searchItems(Self.query).locked == [item])
        // The old clear key, which a thief may have copied, matches no tag any more.
        let records = await fixture.storage.records(of: space)
        let oldTags = AttributeIndex(hasher: try KeyedHash(key: SecureBytes(unwipedCopyOf: clear))).tags(of: Self.list)
        let oldSetTag = Array(oldTags.suffix(16))
        #expect(
            oldTags.count == 48 && !records.contains { Self.contains($0, oldSetTag) }, "re-tagged under a fresh key")

        try await restarted.service.setLockedSearch(
            .always, of: id, with: .typed(Fixture.passcode("mail passcode")), caller: caller)
        let back = try await restarted.header(of: space)
        #expect(back.indexStorage == .clear && back.indexKey != nil && back.indexKey != clear)
        #expect(back.indexSeal == nil && back.indexWrap == nil)
        let entries = try await restarted.service.auditEntries(collection: id).entries.filter {
            $0.action == .lockedSearch
        }
        #expect(entries.map(\.label) == ["always → always (tpm2)", "always (tpm2) → always"])
    }

    @Test func withoutATPMTheSealedKeyIsRefused() async throws {
        let fixture = try await Fixture.persistent()
        let error = await serviceError { () throws(ServiceError) in
            try await fixture.service.createCollection(
                label: "Mail", passcode: Fixture.passcode("mail passcode"), isPrivate: false, isHidden: false,
                lockedSearch: .always, indexStorage: .tpm2)
        }
        #expect(
            error
                == .hardware(
                    .unavailable(
                        "puffd was started without a TPM (locked search tpm2 seals the index key with this machine's TPM)"
                    )))
    }

    static var list: AttributeList { AttributeList(query) }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, !needle.isEmpty else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
