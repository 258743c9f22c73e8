// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Someone who can write the vault's files (T/F) moves whole, authentic records and rewrites
/// their clear prefixes so that the chain reads whole without a key (sequence numbers and
/// previous tags consistent, the last record still the one the head names). An unlock that
/// opens no record must still see it: the head's digest of the records (``ChainDigest``, issue
/// 27 design §4 point 4) differs, the journal is then read whole, and the collection is damaged
/// exactly as when every record was opened at unlock (docs/vault-format.md, Chain).
@Suite struct ChainDigestTests {
    static let client = ClientID(":1.31")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-digest-\(UUID().uuidString)")
    var pristine: URL { folder.appendingPathComponent("pristine") }
    var trial: URL { folder.appendingPathComponent("trial") }

    func service(at path: URL? = nil) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: (path ?? pristine).path),
            mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws(ServiceError) -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: Self.client)
    }

    func read(_ item: ItemID, in service: SecretService) async throws(ServiceError) -> String {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let secret = try await service.secret(of: item, session: session.session, caller: Caller(Self.client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    func journal() throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: trial.path)
        let candidates = try names.filter { $0.hasSuffix(".journal") }.filter { name in
            let header = try Data(contentsOf: trial.appendingPathComponent(String(name.dropLast(8)) + ".header"))
            return header.range(of: Data("login".utf8)) != nil
        }
        return trial.appendingPathComponent(try #require(candidates.first))
    }

    /// Copies the pristine vault to the trial folder and returns its `login` journal's records.
    func records() throws -> (preamble: [UInt8], records: [[UInt8]]) {
        try FileManager.default.createDirectory(at: trial, withIntermediateDirectories: false)
        for name in try FileManager.default.contentsOfDirectory(atPath: pristine.path) where name != "lock" {
            try FileManager.default.copyItem(
                at: pristine.appendingPathComponent(name), to: trial.appendingPathComponent(name))
        }
        let bytes = [UInt8](try Data(contentsOf: try journal()))
        let parsed = try JournalFraming.parse(bytes, file: "journal")
        return (Array(bytes.prefix(16)), parsed.records.map(\.bytes))
    }

    /// Writes `records` back as the journal, their clear prefixes renumbered from `first` on and
    /// each naming its predecessor's MAC, so the chain reads whole without a key.
    func writeRechained(_ preamble: [UInt8], _ records: [[UInt8]], first: UInt64 = 1) throws {
        var out = preamble
        var previous = [UInt8](repeating: 0, count: 16)
        for (position, record) in records.enumerated() {
            var bytes = record
            withUnsafeBytes(of: (first + UInt64(position)).littleEndian) { bytes.replaceSubrange(9..<17, with: $0) }
            bytes.replaceSubrange(17..<33, with: previous)
            previous = Array(bytes.suffix(16))
            out += JournalFraming.frame(bytes)
        }
        try Data(out).write(to: try journal())
    }

    /// Restarts on the trial copy, expects `login` to read whole while locked, unlocks it and
    /// expects the unlock to name damage in its journal.
    func expectDamageAtUnlock(sourceLocation: SourceLocation = #_sourceLocation) async throws -> SecretService {
        let service = try await service(at: trial)
        let locked = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? "not listed"
        #expect(locked.isEmpty, "the clear prefixes read whole: \(locked)", sourceLocation: sourceLocation)
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        let name = try journal().lastPathComponent
        let opened = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(opened.contains(name), "unlock names no damage: \(opened)", sourceLocation: sourceLocation)
        return service
    }

    @Test func aDroppedDeletionRecordWithTheChainRewrittenIsDamageAtUnlockAndTheItemStaysDeleted() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gone: ItemID
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            gone = try await store("gone", "secret", in: service)
            try await service.deleteItem(gone)
            try await store("later", "secret", in: service)
        }
        let (preamble, records) = try records()
        #expect(records.count == 4, "collection, item, deletion, item")
        // Numbered 2, 3, 4: the last is still record 4, as the head names it.
        try writeRechained(preamble, [records[0], records[1], records[3]], first: 2)

        let service = try await expectDamageAtUnlock()
        #expect(!(await service.itemIDs(in: .login).contains(gone)), "the dropped deletion brought the item back")
    }

    /// The record changed is one no unlock opens (a deletion): only the digest can tell. As when
    /// every record was opened at unlock, the deletion that no longer authenticates is left out
    /// (the item reads again) and the collection is damaged: it takes no writes until repair.
    @Test func aDeletionRecordGivenAnotherItemNumberInTheClearIsDamageAtUnlock() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let gone: ItemID
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            gone = try await store("gone", "secret", in: service)
            try await service.deleteItem(gone)
            try await store("later", "secret", in: service)
        }
        var (preamble, records) = try records()
        #expect(records.count == 4, "collection, item, deletion, item")
        #expect(records[2][0] == VaultRecord.Kind.itemDeleted.rawValue)
        records[2][1] = 99
        try writeRechained(preamble, records)

        let service = try await expectDamageAtUnlock()
        let write = await serviceError { () async throws(ServiceError) in try await store("c", "c", in: service) }
        #expect(
            write.map { if case .damaged = $0 { true } else { false } } == true, "a damaged collection takes writes")
        #expect(await service.itemIDs(in: .login).contains(gone), "what authenticates in its place reads, as before")
    }

    @Test func reorderedRecordsWithTheChainRewrittenAreDamageAtUnlock() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let item: ItemID
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            item = try await store("a", "old", in: service)
            try await store("a", "new", in: service)
            try await store("b", "other", in: service)
        }
        let (preamble, records) = try records()
        #expect(records.count == 4, "collection, old secret, new secret, b")
        try writeRechained(preamble, [records[0], records[2], records[1], records[3]])

        let service = try await expectDamageAtUnlock()
        #expect((try? await read(item, in: service)) != "old", "the reorder rolled the secret back unseen")
    }

    @Test func anOldRecordReplayedInPlaceOfANewerOneWithTheChainRewrittenIsDamageAtUnlock() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            try await store("a", "old", in: service)
            try await store("a", "new", in: service)
            try await store("b", "other", in: service)
        }
        let (preamble, records) = try records()
        try writeRechained(preamble, [records[0], records[1], records[1], records[3]])

        _ = try await expectDamageAtUnlock()
    }

    @Test func anUntouchedJournalUnlocksWithoutDamageAndReadsEverySecret() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var items: [ItemID] = []
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            items.append(try await store("a", "old", in: service))
            try await store("a", "new", in: service)
            items.append(try await store("b", "other", in: service))
        }
        let (preamble, records) = try records()
        try writeRechained(preamble, records)

        let service = try await service(at: trial)
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(await service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        #expect(try await read(items[0], in: service) == "new")
        #expect(try await read(items[1], in: service) == "other")
        #expect(try await service.itemInfo(items[1]).label == "b")
    }

    @Test func aTamperedRecordBodyUnlocksButIsRefusedWhenTouchedAndMarksTheCollectionDamaged() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var items: [ItemID] = []
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            items.append(try await store("a", "secret a", in: service))
            items.append(try await store("b", "secret b", in: service))
        }
        var (preamble, records) = try records()
        // A byte of the box's ciphertext (not its MAC): the digest, over prefixes and MACs, holds.
        records[1][records[1].count - 20] ^= 0x01
        try writeRechained(preamble, records)

        let service = try await service(at: trial)
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(try await read(items[1], in: service) == "secret b")
        let refused = await serviceError { () async throws(ServiceError) in try await read(items[0], in: service) }
        #expect(refused.map { if case .damaged = $0 { true } else { false } } == true, "\(String(describing: refused))")
        let status = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(status.contains("item 1's record does not authenticate"), "\(status)")
        let write = await serviceError { () async throws(ServiceError) in try await store("c", "c", in: service) }
        #expect(
            write.map { if case .damaged = $0 { true } else { false } } == true, "a damaged collection takes writes")
    }
}
