// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The committed vault of format version 3 (`Fixtures/vault-v3`: slotted headers, issue 26's "v2")
/// opened through the real file store and service, from a copy: every collection through every
/// one of its slots, with the TPM and security key played by fakes of fixed seeds. As for the
/// older ones: a failure means the format broke; never rewrite the fixture.
@Suite struct GoldenVaultV3Tests {
    let folder: String

    init() throws {
        folder = try GoldenVault.copy(GoldenVault.folder(version: 3))
    }

    func service() async throws -> SecretService {
        try await GoldenVault.service(
            folder: folder, time: SettableTime(), logs: .init(), tpm: GoldenVault.V3.tpm(), keys: GoldenVault.V3.keys())
    }

    static func text(_ text: String) -> SecureBytes { SecureBytes(unwipedCopyOf: Array(text.utf8)) }

    @Test func theVersion3FilesHaveTheirVersionsLockedSearchBytesAndChains() throws {
        try GoldenVaultLayoutTests.checkVersion2Layout(in: GoldenVault.folder(version: 3), headerVersion: 3)
    }

    @Test func theVersion3VaultOpensLockedAndListsEachCollectionsSlots() async throws {
        let logs = InMemoryLogHandler()
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: logs)
        try await GoldenVaultTests.checkLocked(service, version: 3)
        for (id, slots) in GoldenVault.V3.slots { #expect(try await service.slots(of: id) == slots, "\(id)") }
        #expect(!logs.lines.contains { $0.contains("torn") || $0.contains("could not be opened") }, "\(logs.lines)")
    }

    @Test func everyCollectionOpensWithItsPasscodeWithTheExactItems() async throws {
        let service = try await service()
        try await GoldenVaultTests.unlockEverything(service)
        for collection in GoldenVault.visible(version: 3) + [GoldenVault.hidden] {
            try await GoldenVaultTests.checkContents(of: collection, in: service)
        }
    }

    /// Opens `collection` in a service of its own (released before the next one opens the folder)
    /// by `unlock`, then checks its contents.
    func opens(
        _ collection: GoldenVault.Collection, _ unlock: (SecretService) async throws -> Void
    ) async throws {
        let service = try await service()
        try await unlock(service)
        try await GoldenVaultTests.checkContents(of: collection, in: service)
    }

    @Test func loginOpensWithItsRecoveryCodeItsTPMAndItsSecurityKey() async throws {
        let login = GoldenVault.login
        let code = Self.text(GoldenVault.V3.recoveryCode.lowercased())
        try await opens(login) { service in try await service.unlock(login.id, with: .typed(code)) }
        try await opens(login) { service in
            #expect(await service.unlockWithoutPerson() == [login.id], "the tpm2 slot, with no person")
        }
        try await opens(login) { service in
            try await service.unlock(login.id, with: .hardware(pin: nil, passcode: nil, device: nil), slot: 4)
        }
    }

    @Test func workOpensWithItsLoginPasswordAndWithItsKeyAndPasscode() async throws {
        let work = GoldenVault.visible(version: 3)[1]
        try await opens(work) { service in
            try await service.unlock(work.id, with: .login(Self.text(GoldenVault.V3.loginPassword)))
        }
        try await opens(work) { service in
            try await service.unlock(
                work.id, with: .hardware(pin: nil, passcode: Self.text(GoldenVault.V3.keyPasscode), device: nil))
        }
    }

    @Test func openingTheVersion3VaultWritesNothing() async throws {
        let service = try await service()
        try await GoldenVaultTests.unlockEverything(service)
        _ = await service.unlockWithoutPerson()
        let committed = GoldenVault.folder(version: 3)
        for name in try GoldenVault.files(in: committed) {
            let same = FileManager.default.contentsEqual(atPath: "\(folder)/\(name)", andPath: "\(committed)/\(name)")
            #expect(same, "\(name) changed by opening and unlocking")
        }
    }
}
