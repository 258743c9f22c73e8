// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The committed vault of format version 2 (`Fixtures/vault-v2`: header version 2 with locked
/// search, chained journals with heads) opened through the real file store and service, from a
/// copy. As for version 1: a failure means the format broke; never rewrite the fixture.
@Suite struct GoldenVaultV2Tests {
    let folder: String

    init() throws {
        folder = try GoldenVault.copy(GoldenVault.folder(version: 2))
    }

    @Test func theVersion2FilesHaveTheirVersionsLockedSearchBytesAndChains() throws {
        try GoldenVaultLayoutTests.checkVersion2Layout(in: GoldenVault.folder(version: 2))
    }

    @Test func theVersion2VaultOpensLockedAndSearchesOnlyTheAlwaysCollectionBeforeAnyUnlock() async throws {
        let logs = InMemoryLogHandler()
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: logs)
        try await GoldenVaultTests.checkLocked(service, version: 2)
        #expect(!logs.lines.contains { $0.contains("torn") || $0.contains("could not be opened") }, "\(logs.lines)")
    }

    @Test func everyCollectionOpensWithTheExactItemsAndTheAfterUnlockOneIsSearchedAfterLock() async throws {
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        try await GoldenVaultTests.unlockEverything(service)
        for collection in GoldenVault.visible(version: 2) + [GoldenVault.hidden] {
            try await GoldenVaultTests.checkContents(of: collection, in: service)
        }
        let work = GoldenVault.visible(version: 2)[1]
        try await service.lock([work.id])
        let vpn = ItemID(collection: work.id, number: 1)
        #expect(try await service.searchItems(["username": "alice"]).locked == [vpn], "after-unlock: kept across Lock")
    }

    @Test func openingTheVersion2VaultWritesNothing() async throws {
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        try await GoldenVaultTests.unlockEverything(service)
        let committed = GoldenVault.folder(version: 2)
        for name in try GoldenVault.files(in: committed) {
            let same = FileManager.default.contentsEqual(atPath: "\(folder)/\(name)", andPath: "\(committed)/\(name)")
            #expect(same, "\(name) changed by opening and unlocking")
        }
    }
}
