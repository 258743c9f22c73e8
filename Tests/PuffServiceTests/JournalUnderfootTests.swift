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
    let vault = JournalVault("underfoot", client: ":1.41")

    /// `login`'s journal.
    func journal() throws -> URL {
        try vault.loginFile(".journal", at: vault.folder)
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
            let first = try await vault.initialized(at: vault.folder)
            ids.append(try await vault.store("a", "one", in: first))
            ids.append(try await vault.store("b", "old", in: first))
            try await vault.store("b", "new", in: first)
            ids.append(try await vault.store("c", "two", in: first))
        }
        let service = try await vault.service(at: vault.folder)
        try await vault.unlock(service)
        return (service, ids[0], ids[1], ids[2])
    }

    func expectDamaged(_ id: ItemID, in service: SecretService) async throws {
        do {
            let read = try await vault.read(id, in: service)
            Issue.record("the secret of \(id) read as a \(read.count)-byte value")
        } catch {
            guard case .damaged = error else {
                Issue.record("expected .damaged, got \(error)")
                return
            }
        }
        let damage = await vault.damage(in: service) ?? ""
        #expect(damage.contains("item \(id.number)'s record"), "\(damage)")
    }

    @Test func aJournalCutUnderARunningPuffdReportsDamageForWhatIsGone() async throws {
        defer { vault.remove() }
        let (service, a, _, c) = try await unlockedAfterRestart()
        let cFrame = try #require(try itemFrames().last { $0.number == c.number })
        let handle = try FileHandle(forWritingTo: try journal())
        try handle.truncate(atOffset: UInt64(cFrame.frame.lowerBound + 10))
        try handle.close()

        try await expectDamaged(c, in: service)
        #expect(try await vault.read(a, in: service) == "one")
    }

    @Test func anotherItemsRecordPutInPlaceOfAnItemsIsRefusedNotRead() async throws {
        defer { vault.remove() }
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
        defer { vault.remove() }
        let (service, _, b, _) = try await unlockedAfterRestart()
        let versions = try itemFrames().filter { $0.number == b.number }
        try #require(versions.count == 2 && versions[0].frame.count == versions[1].frame.count)
        var bytes = [UInt8](try Data(contentsOf: try journal()))
        bytes.replaceSubrange(versions[1].frame, with: bytes[versions[0].frame])
        try Data(bytes).write(to: try journal())

        try await expectDamaged(b, in: service)
    }
}
