// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Someone who can write the vault's files (T/F, issue 24 item 4) moves whole, authentic records:
/// replays an old one, drops a deletion or a settings record, or cuts the journal at a frame
/// boundary. Each is reported as damage with file and offset, never silently accepted
/// (docs/vault-format.md, Chain).
@Suite struct JournalChainAttackTests {
    static let client = ClientID(":1.30")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-chain-\(UUID().uuidString)")

    /// Where the vault is written; the attacks work on a copy (``trial``), so the writing
    /// service's lock on its folder never matters.
    var pristine: URL { folder.appendingPathComponent("pristine") }
    var trial: URL { folder.appendingPathComponent("trial") }

    /// A service over `path` (the pristine vault by default), as puffd starts it.
    func service(at path: URL? = nil) async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: (path ?? pristine).path),
            mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    /// Stores (or replaces) the item `["k": key]` holding `secret`.
    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: Self.client)
    }

    func read(_ item: ItemID, in service: SecretService) async throws -> String {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let secret = try await service.secret(of: item, session: session.session, caller: Caller(Self.client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    /// `login`'s journal file in the trial copy.
    func journal() throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: trial.path)
        let candidates = try names.filter { $0.hasSuffix(".journal") }.filter { name in
            let header = try Data(contentsOf: trial.appendingPathComponent(String(name.dropLast(8)) + ".header"))
            return header.range(of: Data("login".utf8)) != nil
        }
        return trial.appendingPathComponent(try #require(candidates.first))
    }

    /// Copies the pristine vault (without its lock) to the trial folder and returns the journal's
    /// frames there: each frame's bytes (length, checksum, payload), in order.
    func frames() throws -> (preamble: Data, frames: [Data]) {
        try FileManager.default.createDirectory(at: trial, withIntermediateDirectories: false)
        for name in try FileManager.default.contentsOfDirectory(atPath: pristine.path) where name != "lock" {
            try FileManager.default.copyItem(
                at: pristine.appendingPathComponent(name), to: trial.appendingPathComponent(name))
        }
        let bytes = try Data(contentsOf: try journal())
        let parsed = try JournalFraming.parse([UInt8](bytes), file: "journal")
        var frames: [Data] = []
        for (position, record) in parsed.records.enumerated() {
            let end = position + 1 < parsed.records.count ? Int(parsed.records[position + 1].offset) : bytes.count
            frames.append(bytes.subdata(in: Int(record.offset)..<end))
        }
        return (bytes.prefix(16), frames)
    }

    /// Writes the journal back as `preamble` and `frames`.
    func write(_ preamble: Data, _ frames: [Data]) throws {
        try frames.reduce(preamble, +).write(to: try journal())
    }

    /// Restarts, checks `login`'s damage says `what` before and after its passcode is given, and
    /// returns the unlocked service.
    func expectDamage(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> SecretService {
        let service = try await service(at: trial)
        let name = try journal().lastPathComponent
        let locked = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(
            locked.contains(name) && locked.contains(what), "while locked: \(locked)", sourceLocation: sourceLocation)
        _ = try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        let opened = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(opened.contains(name) && opened.contains(what), "unlocked: \(opened)", sourceLocation: sourceLocation)
        return service
    }

    /// A vault whose `login` holds one item, `["k": "a"]`, given the secret "old" and then "new".
    func vaultWithASecretChanged() async throws -> ItemID {
        let service = try await service()
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let item = try await store("a", "old", in: service)
        try await store("a", "new", in: service)
        return item
    }

    @Test func anOldRecordReplayedAtTheEndIsDamageAndDoesNotRollTheSecretBack() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let item = try await vaultWithASecretChanged()
        let (preamble, frames) = try frames()
        #expect(frames.count == 3, "collection, old secret, new secret")
        try write(preamble, frames + [frames[1]])

        let service = try await expectDamage("out of place")
        #expect(try await read(item, in: service) == "new", "the replayed record rolled the secret back")
    }

    @Test func anOldRecordReplayedInThePlaceOfTheNewOneIsDamage() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let item = try await vaultWithASecretChanged()
        let (preamble, frames) = try frames()
        try write(preamble, [frames[0], frames[1], frames[1]])

        let service = try await expectDamage("record 2 is out of place after record 2")
        let status = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(status.contains("lost acknowledged records: the head names record 3"), "\(status)")
        #expect(try await read(item, in: service) == "old", "what authenticates in its place still reads")
    }

    @Test func aDroppedDeletionRecordIsDamage() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try await service()
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let gone = try await store("gone", "secret", in: service)
        try await service.deleteItem(gone)
        try await store("later", "secret", in: service)
        let (preamble, frames) = try frames()
        #expect(frames.count == 4, "collection, item, deletion, item")
        try write(preamble, [frames[0], frames[1], frames[3]])

        let restarted = try await expectDamage("1 record(s) before record 4 are missing")
        let refused = await serviceError { () async throws(ServiceError) in
            try await restarted.setLabel("renamed", of: .login)
        }
        #expect(
            refused.map { if case .damaged = $0 { true } else { false } } == true, "a damaged journal takes no writes")
    }

    @Test func aDroppedSettingsRecordIsDamage() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try await service()
        try await service.initialize(passcode: Fixture.passcode("one pass"))
        let protected = try await store("protected", "secret", in: service)
        try await service.setProtected(true, of: protected)
        try await store("later", "secret", in: service)
        let (preamble, frames) = try frames()
        #expect(frames.count == 4, "collection, item, settings, item")
        try write(preamble, [frames[0], frames[1], frames[3]])

        _ = try await expectDamage("1 record(s) before record 4 are missing")
    }

    @Test(arguments: [1, 2])
    func aJournalCutAtAFrameBoundaryIsDamageNamingTheLostRecords(dropped: Int) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await vaultWithASecretChanged()
        let (preamble, frames) = try frames()
        try write(preamble, Array(frames.dropLast(dropped)))

        _ = try await expectDamage(
            "lost acknowledged records: the head names record 3, the journal ends at record \(3 - dropped)")
    }

    @Test func anEmptiedJournalIsDamageNotAnEmptyLockedCollection() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await vaultWithASecretChanged()
        let (preamble, _) = try frames()
        try write(preamble, [])

        let service = try await service(at: trial)
        let status = await service.vaultStatus.collections.first { $0.id == "login" }
        #expect(status?.damage.contains("lost acknowledged records") == true, "\(status?.damage ?? "not listed")")
    }

    // MARK: - Damage isolation and repair (issue 24 item 20)

    @Test func aFlippedByteInTheMiddleHidesOnlyItsRecordAndRepairKeepsEveryOther() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let items: [ItemID]
        do {
            let service = try await service()
            try await service.initialize(passcode: Fixture.passcode("one pass"))
            var made: [ItemID] = []
            for key in ["a", "b", "c"] { made.append(try await store(key, "secret \(key)", in: service)) }
            items = made
        }
        var (preamble, frames) = try frames()
        let offset = preamble.count + frames[0].count + frames[1].count
        frames[2][40] ^= 0x01
        try write(preamble, frames)

        do {
            let service = try await expectDamage("is damaged at offset \(offset): record checksum does not match")
            #expect(await service.itemIDs(in: .login) == [items[0], items[2]], "the records before and after it read")
            #expect(try await read(items[2], in: service) == "secret c")
            let report = try await service.repair(.login)
            #expect(report.keptRecords == 3)
            #expect(report.lost.contains { $0.contains("is damaged at offset \(offset)") }, "\(report.lost)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: trial.path).filter {
                $0.contains(".damaged-")
            }
            #expect(aside.count == 1 && report.keptAt.hasSuffix(aside.first ?? "-"), "the old journal is kept beside")
            #expect(
                try await service.collectionInfo(.login).isLocked,
                "repair locks, so the next unlock reads what was kept")
        }

        let restarted = try await self.service(at: trial)
        #expect(await restarted.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        _ = try await restarted.unlock(.login, passcode: Fixture.passcode("one pass"))
        #expect(await restarted.itemIDs(in: .login) == [items[0], items[2]])
        #expect(try await read(items[0], in: restarted) == "secret a")
        try await store("d", "secret d", in: restarted)
    }

    @Test func aCutLastRecordThatHadBeenAcknowledgedIsReportedLost() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await vaultWithASecretChanged()
        var (preamble, frames) = try frames()
        frames[2][frames[2].count - 1] ^= 0x01
        try write(preamble, frames)

        // The torn-looking last frame is cut and kept aside; the head says it had been acknowledged.
        _ = try await expectDamage("lost acknowledged records: the head names record 3, the journal ends at record 2")
        let kept = try FileManager.default.contentsOfDirectory(atPath: trial.path).filter { $0.contains(".cut-") }
        #expect(kept.count == 1)
    }
}
