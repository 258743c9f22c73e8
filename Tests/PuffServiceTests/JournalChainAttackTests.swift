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
    let vault = JournalVault("chain", client: ":1.30")

    /// Copies the pristine vault to the trial folder and returns its `login` journal's frames
    /// there: each frame's bytes (length, checksum, payload), in order.
    func frames() throws -> (preamble: Data, frames: [Data]) {
        let (bytes, records) = try vault.copyToTrial()
        var frames: [Data] = []
        for (position, record) in records.enumerated() {
            let end = position + 1 < records.count ? Int(records[position + 1].offset) : bytes.count
            frames.append(Data(bytes[Int(record.offset)..<end]))
        }
        return (Data(bytes.prefix(16)), frames)
    }

    /// Writes the journal back as `preamble` and `frames`.
    func write(_ preamble: Data, _ frames: [Data]) throws {
        try frames.reduce(preamble, +).write(to: try vault.loginFile(".journal", at: vault.trial))
    }

    /// Restarts, checks `login`'s damage says `what` before and after its passcode is given, and
    /// returns the unlocked service.
    func expectDamage(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> SecretService {
        let service = try await vault.service(at: vault.trial)
        let name = try vault.loginFile(".journal", at: vault.trial).lastPathComponent
        let locked = await vault.damage(in: service) ?? ""
        #expect(
            locked.contains(name) && locked.contains(what), "while locked: \(locked)", sourceLocation: sourceLocation)
        try await vault.unlock(service)
        let opened = await vault.damage(in: service) ?? ""
        #expect(opened.contains(name) && opened.contains(what), "unlocked: \(opened)", sourceLocation: sourceLocation)
        return service
    }

    @Test func anOldRecordReplayedAtTheEndIsDamageAndDoesNotRollTheSecretBack() async throws {
        defer { vault.remove() }
        let item = try await vault.writeWithASecretChanged().a
        let (preamble, frames) = try frames()
        #expect(frames.count == 3, "collection, old secret, new secret")
        try write(preamble, frames + [frames[1]])

        let service = try await expectDamage("out of place")
        #expect(try await vault.read(item, in: service) == "new", "the replayed record rolled the secret back")
    }

    @Test func anOldRecordReplayedInThePlaceOfTheNewOneIsDamage() async throws {
        defer { vault.remove() }
        let item = try await vault.writeWithASecretChanged().a
        let (preamble, frames) = try frames()
        try write(preamble, [frames[0], frames[1], frames[1]])

        let service = try await expectDamage("record 2 is out of place after record 2")
        let status = await vault.damage(in: service) ?? ""
        #expect(status.contains("lost acknowledged records: the head names record 3"), "\(status)")
        #expect(try await vault.read(item, in: service) == "old", "what authenticates in its place still reads")
    }

    @Test func aDroppedDeletionRecordIsDamage() async throws {
        defer { vault.remove() }
        _ = try await vault.writeWithADeletion()
        let (preamble, frames) = try frames()
        #expect(frames.count == 4, "collection, item, deletion, item")
        try write(preamble, [frames[0], frames[1], frames[3]])

        let restarted = try await expectDamage("1 record(s) before record 4 are missing")
        let refused = await serviceError { () async throws(ServiceError) in
            try await restarted.setLabel("renamed", of: .login)
        }
        #expect(refused.isDamage, "a damaged journal takes no writes")
    }

    @Test func aDroppedSettingsRecordIsDamage() async throws {
        defer { vault.remove() }
        let service = try await vault.initialized(at: vault.pristine)
        let protected = try await vault.store("protected", "secret", in: service)
        try await service.setProtected(true, of: protected)
        try await vault.store("later", "secret", in: service)
        let (preamble, frames) = try frames()
        #expect(frames.count == 4, "collection, item, settings, item")
        try write(preamble, [frames[0], frames[1], frames[3]])

        _ = try await expectDamage("1 record(s) before record 4 are missing")
    }

    @Test(arguments: [1, 2])
    func aJournalCutAtAFrameBoundaryIsDamageNamingTheLostRecords(dropped: Int) async throws {
        defer { vault.remove() }
        _ = try await vault.writeWithASecretChanged()
        let (preamble, frames) = try frames()
        try write(preamble, Array(frames.dropLast(dropped)))

        _ = try await expectDamage(
            "lost acknowledged records: the head names record 3, the journal ends at record \(3 - dropped)")
    }

    @Test func anEmptiedJournalIsDamageNotAnEmptyLockedCollection() async throws {
        defer { vault.remove() }
        _ = try await vault.writeWithASecretChanged()
        let (preamble, _) = try frames()
        try write(preamble, [])

        let service = try await vault.service(at: vault.trial)
        let damage = await vault.damage(in: service)
        #expect(damage?.contains("lost acknowledged records") == true, "\(damage ?? "not listed")")
    }

    // MARK: - Damage isolation and repair (issue 24 item 20)

    @Test func aFlippedByteInTheMiddleHidesOnlyItsRecordAndRepairKeepsEveryOther() async throws {
        defer { vault.remove() }
        let items: [ItemID]
        do {
            let service = try await vault.initialized(at: vault.pristine)
            var made: [ItemID] = []
            for key in ["a", "b", "c"] { made.append(try await vault.store(key, "secret \(key)", in: service)) }
            items = made
        }
        var (preamble, frames) = try frames()
        let offset = preamble.count + frames[0].count + frames[1].count
        frames[2][40] ^= 0x01
        try write(preamble, frames)

        do {
            let service = try await expectDamage("is damaged at offset \(offset): record checksum does not match")
            #expect(await service.itemIDs(in: .login) == [items[0], items[2]], "the records before and after it read")
            #expect(try await vault.read(items[2], in: service) == "secret c")
            let report = try await service.repair(.login)
            #expect(report.keptRecords == 3)
            #expect(report.lost.contains { $0.contains("is damaged at offset \(offset)") }, "\(report.lost)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: vault.trial.path).filter {
                $0.contains(".damaged-")
            }
            #expect(aside.count == 1 && report.keptAt.hasSuffix(aside.first ?? "-"), "the old journal is kept beside")
            #expect(
                try await service.collectionInfo(.login).isLocked,
                "repair locks, so the next unlock reads what was kept")
        }

        let restarted = try await vault.service(at: vault.trial)
        #expect(await restarted.vaultStatus.collections.allSatisfy { $0.damage.isEmpty })
        try await vault.unlock(restarted)
        #expect(await restarted.itemIDs(in: .login) == [items[0], items[2]])
        #expect(try await vault.read(items[0], in: restarted) == "secret a")
        try await vault.store("d", "secret d", in: restarted)
    }

    @Test func aCutLastRecordThatHadBeenAcknowledgedIsReportedLost() async throws {
        defer { vault.remove() }
        _ = try await vault.writeWithASecretChanged()
        var (preamble, frames) = try frames()
        frames[2][frames[2].count - 1] ^= 0x01
        try write(preamble, frames)

        // The torn-looking last frame is cut and kept aside; the head says it had been acknowledged.
        _ = try await expectDamage("lost acknowledged records: the head names record 3, the journal ends at record 2")
        let kept = try FileManager.default.contentsOfDirectory(atPath: vault.trial.path).filter { $0.contains(".cut-") }
        #expect(kept.count == 1)
    }
}
