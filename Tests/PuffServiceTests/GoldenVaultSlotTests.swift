// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The golden vaults of versions 1 and 2 (written before slots) under issue 26: they open
/// unchanged, and the first slot change turns a collection's header into version 3, after which
/// it opens through each of its slots, whole, after a restart (design §2 "Migration").
@Suite struct GoldenVaultSlotTests {
    static let caller = Caller(ClientID(":1.10"), executable: "/usr/bin/puffctl")

    @Test(arguments: [UInt16(1), 2])
    func anOldVaultOpensUnchangedAndItsHeadersStayAsTheyWere(version: UInt16) async throws {
        let folder = try GoldenVault.copy(GoldenVault.folder(version: version))
        let before = try Self.headers(in: folder)
        let service = try await GoldenVault.service(folder: folder, time: SettableTime(), logs: .init())
        try await GoldenVaultTests.unlockEverything(service)
        for collection in GoldenVault.visible(version: version) + [GoldenVault.hidden] {
            try await GoldenVaultTests.checkContents(of: collection, in: service)
        }
        #expect(try Self.headers(in: folder) == before, "opening writes no header")
        for (_, bytes) in before { #expect(try VaultHeader(decoding: bytes).version == version) }
    }

    @Test(arguments: [UInt16(1), 2])
    func afterAddingASlotEachCollectionIsVersion3AndOpensWithEitherSlot(version: UInt16) async throws {
        let folder = try GoldenVault.copy(GoldenVault.folder(version: version))
        let tpm = FakeTPM()
        let codes = try await Self.addSlots(folder: folder, tpm: tpm)
        for (_, bytes) in try Self.headers(in: folder) {
            let header = try VaultHeader(decoding: bytes)
            #expect(header.version == (header.flags.contains(.hidden) ? version : 3))
            if !header.isLegacy { #expect(header.slots.map(\.kind) == [.passcode, .recovery, .tpm2]) }
        }
        for credential in ["passcode", "recovery", "tpm2"] {
            let service = try await Self.service(folder: folder, tpm: tpm)
            if credential == "tpm2" {
                #expect(await service.unlockWithoutPerson() == GoldenVault.visible.map(\.id), "no person needed")
            }
            for collection in GoldenVault.visible(version: version) {
                switch credential {
                case "passcode": try await service.unlock(collection.id, with: .typed(GoldenVault.passcode(collection)))
                case "recovery":
                    try await service.unlock(collection.id, with: .typed(try #require(codes[collection.id])))
                default: #expect(try await !service.collectionInfo(collection.id).isLocked)
                }
                try await GoldenVaultTests.checkContents(of: collection, in: service)
            }
            #expect(
                try await service.unlock(nil, passcode: GoldenVault.passcode(GoldenVault.hidden))
                    == GoldenVault.hidden.id)
            try await GoldenVaultTests.checkContents(of: GoldenVault.hidden, in: service)
        }
    }

    /// A locked-search change alone keeps an old header old (design §2): version 2, still one
    /// passcode wrapped under the whole header, which an older puffd reads; it opens after a restart.
    @Test(arguments: [UInt16(1), 2])
    func aLockedSearchChangeKeepsAnOldHeaderAtVersion2(version: UInt16) async throws {
        let folder = try GoldenVault.copy(GoldenVault.folder(version: version))
        let work = GoldenVault.work
        try await Self.changeLockedSearch(folder: folder, of: work)
        let headers = try Self.headers(in: folder).values.map { try VaultHeader(decoding: $0) }
        let header = try #require(headers.first { $0.collectionID == work.id.rawValue })
        #expect(header.version == 2 && header.isLegacy && header.lockedSearch == .never)
        let service = try await Self.service(folder: folder, tpm: FakeTPM())
        try await service.unlock(work.id, with: .typed(GoldenVault.passcode(work)))
        try await GoldenVaultTests.checkContents(of: work, in: service)
    }

    /// Sets `collection`'s locked search to `never` with its passcode; the service is gone after.
    static func changeLockedSearch(folder: String, of collection: GoldenVault.Collection) async throws {
        let service = try await Self.service(folder: folder, tpm: FakeTPM())
        try await service.setLockedSearch(
            .never, of: collection.id, with: .typed(GoldenVault.passcode(collection)), caller: caller)
    }

    /// Adds a recovery slot (proved by the passcode) and a tpm2 slot (proved by the recovery code)
    /// to each visible collection; the hidden one takes none. Returns the recovery codes. The
    /// service is gone when this returns, so the folder can be opened again.
    static func addSlots(folder: String, tpm: FakeTPM) async throws -> [CollectionID: SecureBytes] {
        let service = try await Self.service(folder: folder, tpm: tpm)
        var codes: [CollectionID: SecureBytes] = [:]
        for collection in GoldenVault.visible {
            let added = try await service.addSlot(
                to: collection.id, kind: .recovery, options: SlotOptions(label: "paper"),
                proof: .typed(GoldenVault.passcode(collection)), caller: caller)
            let code = try #require(added.recoveryCode)
            codes[collection.id] = code
            _ = try await service.addSlot(
                to: collection.id, kind: .tpm2, options: SlotOptions(), proof: .typed(code), caller: caller)
        }
        try await service.unlock(nil, passcode: GoldenVault.passcode(GoldenVault.hidden))
        let hidden = await serviceError { () throws(ServiceError) in
            _ = try await service.addSlot(
                to: GoldenVault.hidden.id, kind: .recovery, options: SlotOptions(),
                proof: .typed(GoldenVault.passcode(GoldenVault.hidden)), caller: caller)
        }
        guard case .invalidArgument = hidden else {
            Issue.record("a hidden collection took a slot: \(String(describing: hidden))")
            return codes
        }
        return codes
    }

    /// The header files of `folder`, by name.
    static func headers(in folder: String) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for name in try GoldenVault.files(in: folder) where name.hasSuffix(".header") {
            // `PUFFHDR`, a format byte, then one frame (20 bytes of length and checksum).
            let file = Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)")))
            try #require(file.count > 28 && Array(file.prefix(7)) == Array("PUFFHDR".utf8))
            found[name] = Array(file[28...])
        }
        return found
    }

    /// A persistent service over the file store in `folder` with `tpm`.
    static func service(folder: String, tpm: FakeTPM) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: folder), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter(), promptTimeout: .seconds(30), tpm: tpm, now: SettableTime().now,
            logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }
}
