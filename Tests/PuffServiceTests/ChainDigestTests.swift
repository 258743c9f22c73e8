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
    let vault = JournalVault("digest", client: ":1.31")

    /// Copies the pristine vault to the trial folder and returns its `login` journal's records.
    func records() throws -> (preamble: [UInt8], records: [[UInt8]]) {
        let (bytes, records) = try vault.copyToTrial()
        return (Array(bytes.prefix(16)), records.map(\.bytes))
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
        try Data(out).write(to: try vault.loginFile(".journal", at: vault.trial))
    }

    /// Restarts on the trial copy, expects `login` to read whole while locked, unlocks it and
    /// expects the unlock to name damage in its journal.
    func expectDamageAtUnlock(sourceLocation: SourceLocation = #_sourceLocation) async throws -> SecretService {
        let service = try await vault.service(at: vault.trial)
        let locked = await vault.damage(in: service) ?? "not listed"
        #expect(locked.isEmpty, "the clear prefixes read whole: \(locked)", sourceLocation: sourceLocation)
        try await vault.unlock(service)
        let name = try vault.loginFile(".journal", at: vault.trial).lastPathComponent
        let opened = await vault.damage(in: service) ?? ""
        #expect(opened.contains(name), "unlock names no damage: \(opened)", sourceLocation: sourceLocation)
        return service
    }

    @Test func aDroppedDeletionRecordWithTheChainRewrittenIsDamageAtUnlockAndTheItemStaysDeleted() async throws {
        defer { vault.remove() }
        let gone = try await vault.writeWithADeletion()
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
        defer { vault.remove() }
        let gone = try await vault.writeWithADeletion()
        var (preamble, records) = try records()
        #expect(records.count == 4, "collection, item, deletion, item")
        #expect(records[2][0] == VaultRecord.Kind.itemDeleted.rawValue)
        records[2][1] = 99
        try writeRechained(preamble, records)

        let service = try await expectDamageAtUnlock()
        let write = await serviceError { () async throws(ServiceError) in try await vault.store("c", "c", in: service) }
        #expect(write.isDamage, "a damaged collection takes writes")
        #expect(await service.itemIDs(in: .login).contains(gone), "what authenticates in its place reads, as before")
    }

    @Test func reorderedRecordsWithTheChainRewrittenAreDamageAtUnlock() async throws {
        defer { vault.remove() }
        let item = try await vault.writeWithASecretChanged(another: true).a
        let (preamble, records) = try records()
        #expect(records.count == 4, "collection, old secret, new secret, b")
        try writeRechained(preamble, [records[0], records[2], records[1], records[3]])

        let service = try await expectDamageAtUnlock()
        #expect((try? await vault.read(item, in: service)) != "old", "the reorder rolled the secret back unseen")
    }

    @Test func anOldRecordReplayedInPlaceOfANewerOneWithTheChainRewrittenIsDamageAtUnlock() async throws {
        defer { vault.remove() }
        _ = try await vault.writeWithASecretChanged(another: true)
        let (preamble, records) = try records()
        try writeRechained(preamble, [records[0], records[1], records[1], records[3]])

        _ = try await expectDamageAtUnlock()
    }

    @Test func anUntouchedJournalUnlocksWithoutDamageAndReadsEverySecret() async throws {
        defer { vault.remove() }
        let (a, b) = try await vault.writeWithASecretChanged(another: true)
        let items = [a, try #require(b)]
        let (preamble, records) = try records()
        try writeRechained(preamble, records)

        let service = try await vault.service(at: vault.trial)
        try await vault.unlock(service)
        #expect(await service.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        #expect(try await vault.read(items[0], in: service) == "new")
        #expect(try await vault.read(items[1], in: service) == "other")
        #expect(try await service.itemInfo(items[1]).label == "b")
    }

    @Test func aTamperedRecordBodyUnlocksButIsRefusedWhenTouchedAndMarksTheCollectionDamaged() async throws {
        defer { vault.remove() }
        var items: [ItemID] = []
        do {
            let service = try await vault.initialized(at: vault.pristine)
            items.append(try await vault.store("a", "secret a", in: service))
            items.append(try await vault.store("b", "secret b", in: service))
        }
        var (preamble, records) = try records()
        // A byte of the box's ciphertext (not its MAC): the digest, over prefixes and MACs, holds.
        records[1][records[1].count - 20] ^= 0x01
        try writeRechained(preamble, records)

        let service = try await vault.service(at: vault.trial)
        try await vault.unlock(service)
        #expect(try await vault.read(items[1], in: service) == "secret b")
        let refused = await serviceError { () async throws(ServiceError) in try await vault.read(items[0], in: service)
        }
        #expect(refused.isDamage, "\(String(describing: refused))")
        let status = await vault.damage(in: service) ?? ""
        #expect(status.contains("item 1's record does not authenticate"), "\(status)")
        let write = await serviceError { () async throws(ServiceError) in try await vault.store("c", "c", in: service) }
        #expect(write.isDamage, "a damaged collection takes writes")
    }
}
