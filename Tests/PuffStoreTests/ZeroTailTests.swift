// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffStore

/// The journal's zero-filled tail (design core-reshaped §6): the committer extends a journal with
/// zeros ahead of its appends, replay reads zeros where a frame should start as the logical end,
/// and a group that a power cut kept only in part is told from planted damage by the head.
struct ZeroTailTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-zero-\(UUID().uuidString)").path
    let space = SpaceID.random()
    let sealer = SecretSealer()

    var journal: String { "\(folder)/\(space.hex).journal" }

    func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    func cutFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".cut-") }
    }

    /// Record `sequence` of a chain, following `previous`.
    func record(_ sequence: UInt64, after previous: VaultRecord?) -> VaultRecord {
        VaultRecord(
            kind: .item, number: sequence, tags: [], plaintext: SecureBytes(unwipedCopyOf: [UInt8(sequence)]),
            space: space, sealer: sealer,
            link: previous.map { VaultRecord.Link(sequence: sequence, previous: $0.mac) } ?? .first(sequence))
    }

    /// A head naming `record`.
    func head(naming record: VaultRecord) -> [UInt8] {
        JournalHead(
            sequence: record.link!.sequence, tag: record.mac, digest: .empty, modified: 0, space: space, sealer: sealer
        ).encoded()
    }

    @Test func appendsFillTheZeroTailWhichIsTheLogicalEndAndNothingIsCut() async throws {
        let step = 4096
        do {
            let store = try FileRecordStore(folder: folder, zeroTail: step)
            try await store.replaceHeader([1], of: space)
            for n in 1...3 { try await store.append([UInt8](repeating: UInt8(n), count: 100), to: space, head: nil) }
            #expect(size(journal) == step, "one step of zeros holds the three records")
        }
        do {
            let store = try FileRecordStore(folder: folder, zeroTail: step)
            let replay = try await store.replay(space)
            #expect(replay.records.map { $0.bytes[0] } == [1, 2, 3])
            #expect(replay.cut == nil)
            #expect(replay.damaged.isEmpty)
            #expect(Int(replay.size) == JournalFraming.preamble.count + 3 * 120, "the logical end, not the file's")
            #expect(try cutFiles().isEmpty)
            // Later appends go at the logical end, over the zeros; past the step the file grows by one.
            for n in 4...40 { try await store.append([UInt8](repeating: UInt8(n), count: 100), to: space, head: nil) }
            #expect(size(journal) == 2 * step)
        }
        let again = try await FileRecordStore.reopening(folder: folder).replay(space)
        #expect(again.records.map { $0.bytes[0] } == (1...40).map { UInt8($0) })
        #expect(again.cut == nil)
        #expect(VaultFileCheck.findings(folder: folder).isEmpty, "doctor sees no torn tail in the zeros")
    }

    @Test func aFailedFlushCutsTheZeroTailBackToTheLastDurableEnd() async throws {
        let probe = SyncProbe(holdsFirst: false, failsJournalFlush: 2)
        let store = try FileRecordStore(folder: folder, sync: probe.sync, zeroTail: 4096)
        try await store.replaceHeader([1], of: space)
        try await store.append([1], to: space, head: nil)
        #expect(size(journal) == 4096)
        await #expect(throws: StoreError.writeFailed("cannot fsync \(journal): \(String(cString: strerror(EIO)))")) {
            try await store.append([2], to: space, head: nil)
        }
        let durableEnd = JournalFraming.preamble.count + JournalFraming.frameOverhead + 1
        #expect(size(journal) == durableEnd, "the failed group and the zeros are gone")
        try await store.append([3], to: space, head: nil)
        #expect(size(journal) == 4096, "the next append extends it again")
        let replay = try await store.replay(space)
        #expect(replay.records.map(\.bytes) == [[1], [3]])
        #expect(replay.cut == nil)
    }

    /// Writes records 1 and 2 (the head naming `named`), then record 4 after zeros where record 3
    /// should be: a group of 3 and 4 whose first block never reached the disk.
    func journalWithAHoleAtRecordThree(headNaming named: Int) async throws -> (gap: Int, store: FileRecordStore) {
        let r1 = record(1, after: nil)
        let r2 = record(2, after: r1)
        let r3 = record(3, after: r2)
        let r4 = record(4, after: r3)
        let chain = [r1, r2, r3, r4]
        do {
            let store = try FileRecordStore(folder: folder)
            try await store.replaceHeader([1], of: space)
            try await store.append(contentsOf: [r1.encoded(), r2.encoded()], to: space, head: nil)
            try await store.replaceHead(head(naming: chain[named - 1]), of: space)
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        let gap = bytes.count
        bytes += [UInt8](repeating: 0, count: JournalFraming.frame(r3.encoded()).count)
        bytes += JournalFraming.frame(r4.encoded()) + [UInt8](repeating: 0, count: 4096)
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        return (gap, try await FileRecordStore.reopening(folder: folder))
    }

    @Test func aGroupAPowerCutKeptInPartIsATornTailWhenTheHeadNamesTheRecordBeforeIt() async throws {
        let (gap, store) = try await journalWithAHoleAtRecordThree(headNaming: 2)
        let replay = try await store.replay(space)
        #expect(replay.records.count == 2, "records 1 and 2; 3 and 4 were never acknowledged")
        #expect(replay.damaged.isEmpty)
        #expect(replay.cut?.offset == UInt64(gap))
        #expect(try cutFiles() == ["\(space.hex).journal.cut-\(gap)"], "the torn group is kept aside")
        #expect(size(journal) == gap)
    }

    /// The head is flushed once appends pause, so a power cut can leave on disk a head some groups
    /// behind acknowledged records (record 2 here), with the last group torn after them.
    @Test func aGroupAPowerCutKeptInPartIsATornTailWhenTheHeadNamesARecordBeforeIt() async throws {
        let (gap, store) = try await journalWithAHoleAtRecordThree(headNaming: 1)
        let replay = try await store.replay(space)
        #expect(replay.records.count == 2, "records 1 and 2, acknowledged before the head on disk was flushed")
        #expect(replay.damaged.isEmpty)
        #expect(replay.cut?.offset == UInt64(gap))
        #expect(try cutFiles() == ["\(space.hex).journal.cut-\(gap)"], "the torn group is kept aside")
    }

    @Test func zerosPlantedOverAnAcknowledgedRecordAreDamageAndTheRecordsAfterThemStillRead() async throws {
        // The head names record 4: 3 was acknowledged, so its zeros are damage, not a torn tail.
        let (gap, store) = try await journalWithAHoleAtRecordThree(headNaming: 4)
        let replay = try await store.replay(space)
        #expect(replay.records.count == 3, "records 1, 2 and 4")
        #expect(replay.damaged.map(\.offset) == [UInt64(gap)])
        #expect(replay.cut == nil)
        #expect(try cutFiles().isEmpty)
    }

    @Test func aTornFrameFollowedByTheZeroTailIsCutAsATornAppend() async throws {
        do {
            let store = try FileRecordStore(folder: folder, zeroTail: 4096)
            try await store.replaceHeader([1], of: space)
            try await store.append([1, 2, 3], to: space, head: nil)
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal)))
        let end = JournalFraming.preamble.count + 23
        // Half a frame written over the zeros: its length and the first bytes of its payload.
        let torn = Array(JournalFraming.frame([UInt8](repeating: 7, count: 64)).prefix(40))
        bytes.replaceSubrange(end..<end + torn.count, with: torn)
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        let replay = try await FileRecordStore.reopening(folder: folder).replay(space)
        #expect(replay.records.map(\.bytes) == [[1, 2, 3]])
        #expect(replay.damaged.isEmpty)
        #expect(replay.cut?.offset == UInt64(end))
    }
}
