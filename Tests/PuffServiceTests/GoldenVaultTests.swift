// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The committed vault of format version 1 (`Fixtures/vault-v1`) opened through the real file
/// store and service, from a copy: a vault written by this version must keep opening, whole and
/// exact, in every later one. A failure here means the format broke; never rewrite the fixture to
/// make it pass (Fixtures/README.md).
@Suite struct GoldenVaultTests {
    let folder: String

    init() throws {
        folder = try GoldenVault.copy(GoldenVault.folder(version: 1))
    }

    @Test func theVersion1VaultOpensLockedWithItsCollectionsAliasesAndBlindIndex() async throws {
        let logs = InMemoryLogHandler()
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: logs)
        try await Self.checkLocked(service)
        #expect(!logs.lines.contains { $0.contains("torn") || $0.contains("could not be opened") }, "\(logs.lines)")
    }

    @Test func eachPasscodeOpensItsCollectionWithTheExactItemsTimesAndSecrets() async throws {
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        let wrong = SecureBytes(unwipedCopyOf: Array("not-the-golden-passcode".utf8))
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.unlock(.login, passcode: wrong) }
                == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(try await service.collectionInfo(.login).isLocked)
        for collection in GoldenVault.visible {
            #expect(
                try await service.unlock(collection.id, passcode: GoldenVault.passcode(collection)) == collection.id)
            try await Self.checkContents(of: collection, in: service)
        }
    }

    @Test func theHiddenCollectionAppearsOnlyAfterItsPasscodeAndGoesAgainOnLock() async throws {
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        let hidden = GoldenVault.hidden
        let wrong = SecureBytes(unwipedCopyOf: Array("not-the-golden-passcode".utf8))
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.unlock(nil, passcode: wrong) }
                == .wrongPasscode(PasscodeRetry(attempt: 1, delay: .milliseconds(500))))
        #expect(await !service.collections.contains(hidden.id))
        #expect(try await service.unlock(nil, passcode: GoldenVault.passcode(hidden)) == hidden.id)
        #expect(await service.collections.contains(hidden.id))
        #expect(await service.vaultStatus.collections.first { $0.id == hidden.id.rawValue }?.isHidden == true)
        try await Self.checkContents(of: hidden, in: service)
        try await service.lock([hidden.id])
        #expect(await !service.collections.contains(hidden.id))
        #expect(
            await serviceError { () async throws(ServiceError) in try await service.collectionInfo(hidden.id) }
                == .noSuchObject)
    }

    @Test func openingTheVaultWritesNothingAndNewItemsTakeNumbersNeverUsed() async throws {
        do {
            let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
            try await Self.unlockEverything(service)
            let committed = GoldenVault.folder(version: 1)
            for name in try GoldenVault.files(in: committed) {
                let same = FileManager.default.contentsEqual(
                    atPath: "\(folder)/\(name)", andPath: "\(committed)/\(name)")
                #expect(same, "\(name) changed by opening and unlocking")
            }
            let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
            let item = try await service.createItem(
                in: .login, label: "new", attributes: ["k": "v"], type: "",
                secret: Fixture.plain(Array("new secret".utf8), session: session.session), replace: false,
                client: Fixture.alice)
            #expect(item.number == 6, "number 3 was deleted and is never handed out again")
        }
        // The first write rewrote the old journal chained (format 2); it opens again, whole.
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        try await service.unlock(.login, passcode: GoldenVault.passcode(GoldenVault.login))
        #expect(await service.itemIDs(in: .login).map(\.number) == GoldenVault.login.items.map(\.number) + [6])
        #expect(await service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        try await service.unlock(GoldenVault.work.id, passcode: GoldenVault.passcode(GoldenVault.work))
        try await Self.checkContents(of: GoldenVault.work, in: service)
    }

    // MARK: - Checks shared with GoldenVaultWriter

    /// Opens the vault of `version` in (a copy of) `folder` and checks every collection
    /// (``GoldenVaultWriter``).
    static func checkEveryCollectionOpens(_ folder: String, version: UInt16 = 1) async throws {
        let service = try await GoldenVault.service(
            folder: try GoldenVault.copy(folder), time: SettableTime(), logs: .init())
        try await checkLocked(service, version: version)
        try await unlockEverything(service)
        for collection in GoldenVault.visible(version: version) + [GoldenVault.hidden] {
            try await checkContents(of: collection, in: service)
        }
    }

    static func unlockEverything(_ service: SecretService) async throws {
        for collection in GoldenVault.visible {
            try await service.unlock(collection.id, passcode: GoldenVault.passcode(collection))
        }
        #expect(
            try await service.unlock(nil, passcode: GoldenVault.passcode(GoldenVault.hidden)) == GoldenVault.hidden.id)
    }

    /// What a freshly started service shows before any passcode: the catalog's collections and
    /// aliases, every visible item through the blind index (of the collections whose locked search
    /// is `always`), nothing of the private or hidden ones.
    static func checkLocked(_ service: SecretService, version: UInt16 = 1) async throws {
        let visible = GoldenVault.visible(version: version)
        #expect(await service.isInitialized)
        #expect(await service.collections == visible.map(\.id) + [.session])
        for (alias, id) in GoldenVault.aliases { #expect(await service.readAlias(alias) == id, "alias \(alias)") }
        let status = await service.vaultStatus
        #expect(status.storeKind == "file")
        #expect(status.collections.map(\.id) == visible.map(\.id.rawValue))
        #expect(status.collections.allSatisfy { $0.isLocked && $0.damage.isEmpty && !$0.isHidden })
        #expect(status.collections.map(\.isPrivate) == visible.map(\.isPrivate))
        #expect(status.collections.map(\.isDefault) == [true, false, false])
        if version >= 2 {
            #expect(status.collections.map(\.lockedSearch) == visible.map(\.lockedSearch.description))
        }
        for collection in visible {
            let numbers = collection.isPrivate ? [] : collection.items.map(\.number)
            #expect(await service.itemIDs(in: collection.id).map(\.number) == numbers, "\(collection.id)")
            for item in collection.items {
                for (name, value) in item.attributes {
                    let found = try await service.searchItems([name: value])
                    let searched = !collection.isPrivate && collection.lockedSearch == .always
                    let expected = searched ? [ItemID(collection: collection.id, number: item.number)] : []
                    #expect(found.unlocked.isEmpty)
                    #expect(found.locked == expected, "\(collection.id) \(name)")
                }
            }
        }
        let deleted = try await service.searchItems(["username": "ghost"])
        #expect(deleted.locked.isEmpty && deleted.unlocked.isEmpty, "the deleted item is out of the blind index")
    }

    /// An unlocked collection's label, times, items, secrets and content types, exactly.
    static func checkContents(of collection: GoldenVault.Collection, in service: SecretService) async throws {
        let id = collection.id
        #expect(
            try await service.collectionInfo(id)
                == CollectionInfo(
                    label: collection.label, isLocked: false, created: collection.created,
                    modified: collection.modified, itemCount: collection.items.count))
        #expect(await service.itemIDs(in: id).map(\.number) == collection.items.map(\.number))
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Fixture.alice)
        for item in collection.items {
            let itemID = ItemID(collection: id, number: item.number)
            #expect(
                try await service.itemInfo(itemID)
                    == ItemInfo(
                        label: item.label, attributes: item.attributes, type: item.reportedType, isLocked: false,
                        created: item.created, modified: item.modified))
            let secret = try await service.secret(of: itemID, session: session.session, caller: Caller(Fixture.alice))
            #expect(secret.contentType == item.contentType, "\(itemID)")
            // Compared here, so a failure names sizes only, never the secret's bytes.
            let same = secret.value.unprotectedArray() == item.secret
            #expect(same, "\(itemID): the secret differs (\(secret.value.count) bytes, expected \(item.secret.count))")
            if !item.attributes.isEmpty {
                #expect(try await service.searchItems(item.attributes, in: id) == [itemID])
            }
        }
        for number in collection.deleted {
            let gone = ItemID(collection: id, number: number)
            #expect(
                await serviceError { () async throws(ServiceError) in try await service.itemInfo(gone) }
                    == .noSuchObject, "\(gone)")
        }
    }
}
