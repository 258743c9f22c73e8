// SPDX-License-Identifier: Apache-2.0
import Foundation
import InMemoryLogging
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Items hold locators, not records (design core-reshaped §5): a secret is read from the journal
/// when asked for. Someone with the user's rights who cuts or rewrites the journal under a running
/// puffd (attacker F) gets a damage report for what they touched: never a crash, another item's
/// secret, or an older secret of the same item.
@Suite struct JournalUnderfootTests {
    static let client = ClientID(":1.41")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-underfoot-\(UUID().uuidString)")

    func service() async throws -> SecretService {
        try await SecretService(
            store: try await FileRecordStore.reopening(folder: folder.path), mode: .persistent(kdf: .interactive),
            prompter: ScriptedPrompter([]), promptTimeout: .seconds(30), clock: ManualClock(),
            now: { 1_700_000_000 }, logger: InMemoryLogHandler.logger(store: .init()), events: { _ in })
    }

    @discardableResult
    func store(_ key: String, _ secret: String, in service: SecretService) async throws -> ItemID {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        return try await service.createItem(
            in: .login, label: key, attributes: ["k": key], type: "",
            secret: Fixture.plain(Array(secret.utf8), session: session.session), replace: true, client: Self.client)
    }

    func secret(of id: ItemID, in service: SecretService) async throws -> String {
        let session = try await service.openSession(algorithm: "plain", input: .string(""), client: Self.client)
        let secret = try await service.secret(of: id, session: session.session, caller: Caller(Self.client))
        return String(decoding: secret.value.unprotectedArray(), as: UTF8.self)
    }

    /// `login`'s journal.
    func journal() throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let login = try names.filter { $0.hasSuffix(".header") }.first { name in
            try Data(contentsOf: folder.appendingPathComponent(name)).range(of: Data("login".utf8)) != nil
        }
        return folder.appendingPathComponent(String(try #require(login).dropLast(7)) + ".journal")
    }

    /// The journal's item records: number, chain sequence, and the frame's place in the file.
    func itemFrames() throws -> [(number: UInt64, sequence: UInt64, frame: Range<Int>)] {
        let bytes = [UInt8](try Data(contentsOf: try journal()))
        return try JournalFraming.parse(bytes, file: "journal").records.compactMap { stored in
            let record = try VaultRecord(decoding: stored.bytes, format: VaultRecord.currentFormat)
            guard record.kind == .item else { return nil }
            let start = Int(stored.offset)
            return (record.number, record.link?.sequence ?? 0, start..<start + 20 + stored.bytes.count)
        }
    }

    /// A vault whose `login` holds a, b (its secret changed from "old" to "new") and c, each
    /// secret as long as the others, restarted and unlocked: its items hold locators only.
    func unlockedAfterRestart() async throws -> (SecretService, a: ItemID, b: ItemID, c: ItemID) {
        var ids: [ItemID] = []
        do {
            let first = try await service()
            try await first.initialize(passcode: Fixture.passcode("one pass"))
            ids.append(try await store("a", "one", in: first))
            ids.append(try await store("b", "old", in: first))
            try await store("b", "new", in: first)
            ids.append(try await store("c", "two", in: first))
        }
        let service = try await service()
        try await service.unlock(.login, passcode: Fixture.passcode("one pass"))
        return (service, ids[0], ids[1], ids[2])
    }

    func expectDamaged(_ id: ItemID, in service: SecretService) async throws {
        do {
            let read = try await secret(of: id, in: service)
            Issue.record("the secret of \(id) read as a \(read.count)-byte value")
        } catch let error as ServiceError {
            guard case .damaged = error else {
                Issue.record("expected .damaged, got \(error)")
                return
            }
        }
        let damage = await service.vaultStatus.collections.first { $0.id == "login" }?.damage ?? ""
        #expect(damage.contains("item \(id.number)'s record"), "\(damage)")
    }

    @Test func aJournalCutUnderARunningPuffdReportsDamageForWhatIsGone() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (service, a, _, c) = try await unlockedAfterRestart()
        let cFrame = try #require(try itemFrames().last { $0.number == c.number })
        let handle = try FileHandle(forWritingTo: try journal())
        try handle.truncate(atOffset: UInt64(cFrame.frame.lowerBound + 10))
        try handle.close()

        try await expectDamaged(c, in: service)
        #expect(try await secret(of: a, in: service) == "one")
    }

    @Test func anotherItemsRecordPutInPlaceOfAnItemsIsRefusedNotRead() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (service, a, _, c) = try await unlockedAfterRestart()
        let frames = try itemFrames()
        let aFrame = try #require(frames.first { $0.number == a.number })
        let cFrame = try #require(frames.last { $0.number == c.number })
        try #require(aFrame.frame.count == cFrame.frame.count)
        var bytes = [UInt8](try Data(contentsOf: try journal()))
        bytes.replaceSubrange(cFrame.frame, with: bytes[aFrame.frame])
        try Data(bytes).write(to: try journal())

        try await expectDamaged(c, in: service)
    }

    @Test func anOlderRecordOfTheSameItemPutInPlaceOfItsNewestIsRefusedNotRolledBack() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (service, _, b, _) = try await unlockedAfterRestart()
        let versions = try itemFrames().filter { $0.number == b.number }
        try #require(versions.count == 2 && versions[0].frame.count == versions[1].frame.count)
        var bytes = [UInt8](try Data(contentsOf: try journal()))
        bytes.replaceSubrange(versions[1].frame, with: bytes[versions[0].frame])
        try Data(bytes).write(to: try journal())

        try await expectDamaged(b, in: service)
    }
}
