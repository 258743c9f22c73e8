// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffTesting
import Testing

@testable import PuffStore

/// A flipped byte anywhere in a file vault: the service still starts, says which file and offset
/// failed, and every other collection opens.
@Suite struct DamagedVaultTests {
    static let client = ClientID(":1.20")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-damage-\(UUID().uuidString)")

    func service(over path: String, logs: InMemoryLogHandler) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: path), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: logs), events: { _ in })
    }

    /// Stores one item with `secret` in `collection`.
    func store(_ secret: String, in collection: CollectionID, of service: SecretService) async throws {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        _ = try await service.createItem(
            in: collection, label: "item", attributes: ["k": secret], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: false, client: Self.client)
    }

    /// A vault with `login` (passcode "one pass") and a second collection (passcode "two pass"),
    /// one item each.
    func makeVault() async throws -> CollectionID {
        let service = try await service(over: folder.appendingPathComponent("pristine").path, logs: .init())
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let other = try await service.createCollection(
            label: "Other", passcode: Fixture.passcode("two pass"), isPrivate: false, isHidden: false)
        try await store("login secret", in: .login, of: service)
        try await store("other secret", in: other, of: service)
        try await store("other second", in: other, of: service)
        return other
    }

    /// A copy of the pristine vault with the bit 0x10 of `file`'s byte at `offset` flipped.
    func damagedCopy(_ file: String, at offset: Int) throws -> String {
        let copy = folder.appendingPathComponent("trial")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false)
        let pristine = folder.appendingPathComponent("pristine")
        for name in try FileManager.default.contentsOfDirectory(atPath: pristine.path) where name != "lock" {
            var bytes = try Data(contentsOf: pristine.appendingPathComponent(name))
            if name == file { bytes[offset] ^= 0x10 }
            try bytes.write(to: copy.appendingPathComponent(name))
        }
        return copy.path
    }

    /// The kinds of file in a vault; each is flipped in a test case of its own, so that the cases
    /// (about a hundred seconds of copies, fsyncs and reopenings in one) run side by side.
    static let kinds = ["catalog", ".header", ".journal", ".head"]

    @Test(arguments: kinds)
    func everyFlippedByteIsReportedWithItsFileAndTheOtherCollectionStillOpens(kind: String) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try await makeVault()
        let pristine = folder.appendingPathComponent("pristine").path
        // Read without a store: the vault's own service may not have let go of its lock yet.
        let catalogFile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(pristine)/catalog")))
        let catalog = try ChecksummedFile.decode(catalogFile, magic: ChecksummedFile.catalogMagic, name: "catalog")
        let spaces = try Catalog(decoding: catalog).collections
        let spaceOf = Dictionary(uniqueKeysWithValues: spaces.map { ($0.space.hex, CollectionID($0.id)) })
        let files = try FileManager.default.contentsOfDirectory(atPath: pristine).filter { $0 != "lock" }.sorted()
        #expect(files.count == 7, "a catalog and a header, journal and head per collection: \(files)")
        var lastFrame: [String: Int] = [:]
        for file in files where file.hasSuffix(".journal") {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(pristine)/\(file)")))
            lastFrame[file] = Int(try #require(try JournalFraming.parse(bytes, file: file).records.last).offset)
        }
        let kindOf = { (file: String) in Self.kinds.first { file == $0 || ($0.hasPrefix(".") && file.hasSuffix($0)) } }
        #expect(files.allSatisfy { kindOf($0) != nil }, "every file is of one of the kinds: \(files)")
        let chosen = files.filter { kindOf($0) == kind }
        #expect(chosen.count == (kind == "catalog" ? 1 : 2), "\(kind): \(chosen)")
        var trials = 0
        for file in chosen {
            let size = try Data(contentsOf: URL(fileURLWithPath: "\(pristine)/\(file)")).count
            let owner = spaceOf[String(file.prefix(32))]
            // A head's two slots, not the zeros between them.
            let slot = FileRecordStore.headSlotSize
            let offsets = file.hasSuffix(".head") ? Array(0..<min(size, 84)) + Array(slot..<size) : Array(0..<size)
            for offset in offsets {
                let copy = try damagedCopy(file, at: offset)
                let logs = InMemoryLogHandler()
                let service = try await service(over: copy, logs: logs)
                let status = await service.vaultStatus
                let healthy = Set(status.collections.filter { $0.damage.isEmpty }.map { CollectionID($0.id) })
                let damaged = status.collections.filter { !$0.damage.isEmpty }
                let where_ = "\(file) at \(offset)"
                if let owner {
                    let untouched: CollectionID = owner == .login ? other : .login
                    #expect(healthy.contains(untouched), "\(where_): \(untouched) did not open")
                    let reported = damaged.first { $0.id == owner.rawValue }
                    let cut = logs.lines.contains { $0.contains("Cut a torn record") && $0.contains(file) }
                    if file.hasSuffix(".head") {
                        // One slot is whole: it names the newest record or the one before, which
                        // reads as an append never acknowledged. Both open.
                        #expect(reported == nil, "\(where_): \(damaged.map(\.damage))")
                    } else if file.hasSuffix(".header") {
                        #expect(reported?.damage.contains("\(file) is damaged at offset") == true, "\(where_)")
                    } else if offset < lastFrame[file, default: 0] {
                        #expect(
                            reported?.damage.contains("\(file) is damaged at offset") == true,
                            "\(where_): a record before the last is not reported: \(damaged.map(\.damage))")
                    } else {
                        // A flip in the last record looks like a torn append: cut off, kept and logged.
                        let keptCut = try FileManager.default.contentsOfDirectory(atPath: copy)
                            .contains { $0.hasPrefix("\(file).cut-") }
                        #expect(
                            reported?.damage.contains("\(file) is damaged at offset") == true || (cut && keptCut),
                            "\(where_): neither reported damaged nor cut: \(damaged.map(\.damage))")
                    }
                    if offset % 64 == 0 {
                        let secret = untouched == .login ? "login secret" : "other secret"
                        try await expectOpens(
                            untouched, passcode: untouched == .login ? "one pass" : "two pass", secret, service)
                    }
                } else {
                    #expect(file == "catalog")
                    #expect(healthy == [.login, other], "\(where_): \(damaged.map(\.damage))")
                    #expect(logs.lines.contains { $0.contains("catalog is damaged") && $0.contains("catalog") })
                    #expect(await service.readAlias("default") == .login, "\(where_)")
                }
                trials += 1
            }
        }
        #expect(trials > 40, "every byte of every \(kind) file was flipped once")
    }

    /// Unlocks `collection` and finds an item whose secret is `secret`.
    func expectOpens(
        _ collection: CollectionID, passcode: String, _ secret: String, _ service: SecretService
    ) async throws {
        _ = try await service.unlock(collection, passcode: Fixture.passcode(passcode))
        let hits = try await service.searchItems(["k": secret], in: collection)
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let item = try #require(hits.first, "no item in \(collection) after unlock")
        let read = try await service.secret(of: item, session: session.session, caller: Caller(Self.client))
        #expect(read.value.unprotectedArray() == Array(secret.utf8))
    }
}
