// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffStore
import PuffTesting
import Testing

/// Records read back by their locators (design core-reshaped §5): 16 bytes per item in memory,
/// one read per touch, from the file store and the memory store alike.
@Suite struct RecordLocatorTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-locator-\(UUID().uuidString)").path

    @Test func aLocatorTakesSixteenBytesInAnArray() {
        #expect(MemoryLayout<RecordLocator>.stride == 16)
    }

    /// Appends three records in two appends and reads each back by the locators its ticket gives,
    /// and agrees with where a replay finds them.
    func appendsReadBack(in store: any RecordStore) async throws {
        let space = SpaceID.random()
        try await store.replaceHeader([1], of: space)
        let first = try await store.enqueueAppend(contentsOf: [[10, 11], [12]], to: space, head: nil, expecting: nil)
        try await first.durable()
        let second = try await store.enqueueAppend(contentsOf: [[20, 21, 22]], to: space, head: nil, expecting: nil)
        try await second.durable()
        let locators =
            try #require(first.locators(of: [[10, 11], [12]], sequences: [1, 2]))
            + (try #require(second.locators(of: [[20, 21, 22]], sequences: [3])))
        #expect(try locators.map { try store.read($0, in: space) } == [[10, 11], [12], [20, 21, 22]])
        #expect(try await store.replay(space).records.map(\.offset) == locators.map(\.offset))

        // A locator that names no record there is damage, not other bytes.
        var wrong = locators[2]
        wrong.length += 1
        #expect {
            try store.read(wrong, in: space)
        } throws: { error in
            guard case StoreError.damaged = error else { return false }
            return true
        }
    }

    @Test func theFileStoreReadsWhatItAppendedWhereItsTicketSays() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await appendsReadBack(in: try FileRecordStore(folder: folder))
    }

    @Test func theMemoryStoreReadsWhatItAppendedWhereItsTicketSays() async throws {
        try await appendsReadBack(in: MemoryRecordStore())
    }

    @Test func aRecordReadAfterTheJournalWasRewrittenComesFromTheNewJournal() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try FileRecordStore(folder: folder)
        let space = SpaceID.random()
        try await store.replaceHeader([1], of: space)
        try await store.append(contentsOf: [[1, 1, 1], [2, 2]], to: space, head: nil)
        let before = try await store.replay(space).records[1]
        let locator = RecordLocator(offset: before.offset, length: 2, sequence: 0)
        #expect(try store.read(locator, in: space) == [2, 2])
        _ = try await store.rewrite(space, records: [[3, 3, 3], [4, 4]])
        #expect(try store.read(locator, in: space) == [4, 4])
    }
}
