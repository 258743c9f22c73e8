// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Writes a new golden vault through the real service and file store, only when asked:
/// `PUFF_WRITE_GOLDEN=Tests/PuffServiceTests/Fixtures swift test --filter GoldenVaultWriter`.
///
/// It makes `<folder>/vault-v<format version>` and refuses to touch one that exists: a golden
/// vault is written once per format version and never again (Fixtures/README.md).
@Suite struct GoldenVaultWriter {
    static let destination = ProcessInfo.processInfo.environment["PUFF_WRITE_GOLDEN"]

    @Test(.enabled(if: destination != nil, "set PUFF_WRITE_GOLDEN=<folder> to write a golden vault"))
    func writesTheGoldenVaultOfThisFormatVersion() async throws {
        let target = "\(try #require(Self.destination))/vault-v\(VaultHeader.slottedVersion)"
        try #require(
            !FileManager.default.fileExists(atPath: target), "\(target) exists; golden files are never rewritten")
        let scratch = try makeScratchFolder()
        try await Self.write(into: scratch)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        for name in try GoldenVault.files(in: scratch) where name != "lock" {
            try FileManager.default.copyItem(atPath: "\(scratch)/\(name)", toPath: "\(target)/\(name)")
        }
        // What was written must pass the very checks the committed copy will face.
        if VaultHeader.slottedVersion == 1 {
            try GoldenVaultLayoutTests.checkFileLayout(in: target)
        } else {
            try GoldenVaultLayoutTests.checkVersion2Layout(in: target, headerVersion: VaultHeader.slottedVersion)
        }
        try await GoldenVaultTests.checkEveryCollectionOpens(target, version: VaultHeader.slottedVersion)
    }

    private func makeScratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-golden-empty-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Makes the changes that leave the vault as ``GoldenVault`` describes it, at known times.
    private static func write(into folder: String) async throws {
        let time = SettableTime(GoldenVault.start)
        var elapsed: UInt64 = 0
        func at(_ offset: UInt64) {
            time.advance(by: offset - elapsed)
            elapsed = offset
        }
        let service = try await GoldenVault.service(
            folder: folder, time: time, logs: InMemoryLogHandler(), tpm: GoldenVault.V3.tpm(),
            keys: GoldenVault.V3.keys())
        let client = Fixture.alice
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: client).session
        func secret(_ bytes: [UInt8], _ contentType: String) -> TransportSecret {
            Fixture.plain(bytes, session: session, contentType: contentType)
        }
        func create(
            _ collection: CollectionID, _ label: String, _ attributes: Attributes, type: String = "",
            _ bytes: [UInt8], _ contentType: String = "text/plain"
        ) async throws -> UInt64 {
            try await service.createItem(
                in: collection, label: label, attributes: attributes, type: type,
                secret: secret(bytes, contentType), replace: false, client: client
            ).number
        }
        let login = GoldenVault.login.items
        // Numbers are compared at the end, so no expectation has a secret in its expression.
        var numbers: [UInt64] = []
        try await service.initialize(passcode: GoldenVault.passcode(GoldenVault.login))
        at(10)
        numbers.append(try await create(.login, "github", login[0].attributes, login[0].secret))
        at(20)
        numbers.append(
            try await create(
                .login, login[1].label, login[1].attributes, type: login[1].type, login[1].secret,
                login[1].contentType))
        at(30)
        numbers.append(
            try await create(.login, "Old password", ["service": "old.example.com", "username": "ghost"], [1]))
        at(40)
        numbers.append(try await create(.login, login[2].label, login[2].attributes, Array("first-wifi-secret".utf8)))
        at(50)
        try await service.deleteItem(ItemID(collection: .login, number: 3))
        at(60)
        try await service.setSecret(
            secret(login[2].secret, login[2].contentType), of: ItemID(collection: .login, number: 4), client: client)
        at(70)
        try await service.setLabel(login[0].label, of: ItemID(collection: .login, number: 1))
        at(80)
        numbers.append(try await create(.login, login[3].label, login[3].attributes, login[3].secret))
        #expect(numbers == [1, 2, 3, 4, 5])

        let work = GoldenVault.visible(version: VaultHeader.slottedVersion)[1]
        at(100)
        let workID = try await service.createCollection(
            label: "Work", passcode: GoldenVault.passcode(work), isPrivate: false, isHidden: false,
            lockedSearch: work.lockedSearch)
        #expect(workID == work.id)
        at(110)
        _ = try await create(work.id, work.items[0].label, work.items[0].attributes, work.items[0].secret)
        at(120)
        try await service.setLabel(work.label, of: work.id)
        at(130)
        try await service.setAlias("work", to: work.id)

        for (collection, offset) in [(GoldenVault.diary, UInt64(200)), (GoldenVault.hidden, 300)] {
            at(offset)
            let id = try await service.createCollection(
                label: collection.label, passcode: GoldenVault.passcode(collection), isPrivate: collection.isPrivate,
                isHidden: collection.isHidden)
            #expect(id == collection.id)
            at(offset + 10)
            let item = collection.items[0]
            _ = try await create(id, item.label, item.attributes, item.secret)
        }
        if VaultHeader.slottedVersion >= 3 { try await addSlots(service, at: at) }
        try await service.lock([])
    }

    /// Version 3: the slots ``GoldenVault/V3`` lists, each proved by its collection's passcode.
    /// The recovery code is printed once: it goes into ``GoldenVault/V3/recoveryCode``.
    private static func addSlots(_ service: SecretService, at: (UInt64) -> Void) async throws {
        let caller = Caller(Fixture.alice, executable: "/usr/bin/puffctl")
        func add(_ id: CollectionID, _ kind: KeySlot.Kind, _ options: SlotOptions) async throws -> SecureBytes? {
            let proof = SlotCredential.typed(GoldenVault.passcode(id == .login ? GoldenVault.login : GoldenVault.work))
            return try await service.addSlot(to: id, kind: kind, options: options, proof: proof, caller: caller)
                .recoveryCode
        }
        at(400)
        let code = try await add(.login, .recovery, SlotOptions(label: "paper"))
        print(
            "GoldenVaultWriter: login's recovery code is \(String(decoding: try #require(code).unprotectedArray(), as: UTF8.self))"
        )
        _ = try await add(.login, .tpm2, SlotOptions(label: "this machine", pcrMask: 1 << 7))
        _ = try await add(.login, .fido2, SlotOptions(label: "yubikey"))
        let work = GoldenVault.work.id
        _ = try await add(
            work, .login,
            SlotOptions(label: "login password", newPasscode: Fixture.passcode(GoldenVault.V3.loginPassword)))
        _ = try await add(
            work, .fido2Passcode,
            SlotOptions(label: "key and passcode", withPasscode: Fixture.passcode(GoldenVault.V3.keyPasscode)))
        for (id, slots) in GoldenVault.V3.slots { #expect(try await service.slots(of: id) == slots, "\(id)") }
    }
}
