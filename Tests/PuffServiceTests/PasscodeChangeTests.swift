// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A passcode change re-keys the collection: a new master key in a new space, every record sealed
/// again (docs/vault-format.md, "Re-keying"; RekeyTests has the attacks).
@Suite struct PasscodeChangeTests {
    static let secrets = ["one": "first secret", "two": "second secret", "three": "third secret"]

    /// Stores ``secrets`` in `collection`, one item each, keyed by the name attribute.
    static func fill(_ fixture: Fixture, _ collection: CollectionID) async throws -> [String: ItemID] {
        var items: [String: ItemID] = [:]
        for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            items[name] = try await fixture.store(["name": name], secret: secret, label: name, in: collection)
        }
        return items
    }

    /// Checks every item of ``fill(_:_:)`` reads back exactly.
    static func expectIntact(
        _ fixture: Fixture, _ items: [String: ItemID], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for (name, item) in items {
            #expect(
                try await fixture.holds(item, secrets[name] ?? ""), "\(name) intact", sourceLocation: sourceLocation)
            #expect(
                try await fixture.service.itemInfo(item).attributes == ["name": name], sourceLocation: sourceLocation)
        }
    }

    @Test func theNewPasscodeOpensTheOldOneFailsAndEveryRecordIsSealedAgainInANewSpace() async throws {
        let first = try await Fixture.persistent()
        let items = try await Self.fill(first, .login)
        let space = try await first.space(of: .login)
        let records = await first.storage.records(of: space)
        let oldHeader = try await first.header(of: space)

        try await first.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        let newSpace = try await first.space(of: .login)
        #expect(newSpace != space, "the catalog names the new space")
        #expect(try await first.storage.spaces() == [newSpace], "the old space is gone")
        let newRecords = await first.storage.records(of: newSpace)
        #expect(newRecords.count == records.count, "every live record kept")
        let noneKept = Set(newRecords).isDisjoint(with: Set(records))
        #expect(noneKept, "none of them byte for byte as it was")
        let newHeader = try await first.header(of: newSpace)
        let salts = [oldHeader, newHeader].map { $0.slots.first?.parameters.typed?.salt }
        #expect(salts[0] != nil && salts[1] != salts[0], "a new salt for the new passcode")
        #expect(newHeader.indexKey == oldHeader.indexKey, "the blind index stays valid")
        try await Self.expectIntact(first, items)

        try await first.service.lock([.login])
        let old = await first.immediateAnswer { () async throws(ServiceError) in
            try await first.unlock(.login, "correct horse")
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        try await first.unlock(.login, "battery staple")
        try await Self.expectIntact(first, items)

        let fixture = try await first.restarted()
        #expect(try await fixture.service.searchItems(["name": "two"]).locked == [try #require(items["two"])])
        let afterRestart = await fixture.immediateAnswer { () async throws(ServiceError) in
            try await fixture.unlock(.login, "correct horse")
        }
        #expect(afterRestart == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        try await fixture.unlock(.login, "battery staple")
        try await Self.expectIntact(fixture, items)
    }

    @Test func aWrongOldPasscodeChangesNothing() async throws {
        let fixture = try await Fixture.persistent()
        let space = try await fixture.space(of: .login)
        let header = try await fixture.storage.header(of: space)
        let error = await fixture.immediateAnswer { () async throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: .login, old: Fixture.passcode("guess"), new: Fixture.passcode("mine now"))
        }
        #expect(error == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.storage.header(of: space) == header)
        try await fixture.service.lock([.login])
        try await fixture.unlock(.login, "correct horse")
    }

    @Test func aLockedCollectionsPasscodeCanBeChanged() async throws {
        let first = try await Fixture.persistent()
        let items = try await Self.fill(first, .login)
        try await first.service.lock([.login])
        try await first.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple"))
        #expect(try await first.service.collectionInfo(.login).isLocked, "changing it does not unlock it")
        let fixture = try await first.restarted()
        try await fixture.unlock(.login, "battery staple")
        try await Self.expectIntact(fixture, items)
    }

    @Test(arguments: [false, true])
    func aPrivateOrHiddenCollectionsNewPasscodeWorksAfterARestart(hidden: Bool) async throws {
        let first = try await Fixture.persistent()
        let vault = try await first.makeCollection("Vault", passcode: "old pass", isPrivate: true, isHidden: hidden)
        let items = try await Self.fill(first, vault)
        let login = try await first.space(of: .login)
        let space = try #require(try await first.storage.spaces().first { $0 != login })
        try await first.service.changePasscode(
            of: vault, old: Fixture.passcode("old pass"), new: Fixture.passcode("new pass"))
        let spaces = try await first.storage.spaces()
        #expect(spaces.count == 2 && spaces.contains(login) && !spaces.contains(space), "moved to a new space")

        let fixture = try await first.restarted()
        let target: CollectionID? = hidden ? nil : vault
        let old = await fixture.immediateAnswer { () async throws(ServiceError) in
            try await fixture.unlock(target, "old pass")
        }
        #expect(old == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await fixture.unlock(target, "new pass") == vault)
        try await Self.expectIntact(fixture, items)
    }
}
