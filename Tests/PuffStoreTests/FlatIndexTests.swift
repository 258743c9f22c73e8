// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffStore

/// The flat blind index of an index snapshot (design core-reshaped §4.2): it loads as it was
/// written, and a table a planted file puts out of order or out of bounds makes the snapshot
/// unusable (the journal is then scanned) instead of trapping or answering from a broken table.
@Suite struct FlatIndexTests {
    static let keys: [(digest: Digest128, numbers: [UInt64])] = [
        (Digest128(high: 9, low: 1), [4]),
        (Digest128(high: 2, low: 7), [1, 2, 3]),
        (Digest128(high: 2, low: 3), [5]),
        (Digest128(high: 5, low: 0), [2, 6]),
    ]

    func snapshot(_ keys: FlatIndex) -> IndexSnapshot {
        IndexSnapshot(
            journalLength: 100, version: 2, lastRecordOffset: 16, lastTag: [1, 2], tipSequence: 3, firstSequence: 1,
            nextNumber: 7, deadRecords: 0, hasCollectionRecord: true, items: [1, 2, 3, 4, 5, 6], settings: [],
            keys: keys)
    }

    @Test func keysAreSortedAndSplitIntoSinglesAndSharedRuns() {
        let index = FlatIndex(keys: Self.keys)
        #expect(index.singles == [2, 3, 5, 9, 1, 4])
        #expect(index.shared == [2, 7, 0 << 32 | 3, 5, 0, 3 << 32 | 2])
        #expect(index.postings == [1, 2, 3, 2, 6])
        #expect(index.slot(of: Digest128(high: 2, low: 7)).map { Array(index.numbers(at: $0)) } == [1, 2, 3])
        #expect(index.slot(of: Digest128(high: 9, low: 1)).map { Array(index.numbers(at: $0)) } == [4])
        #expect(index.slot(of: Digest128(high: 9, low: 2)) == nil)
    }

    @Test func aSnapshotLoadsTheTablesItWrote() throws {
        let written = snapshot(FlatIndex(keys: Self.keys))
        let read = try #require(IndexSnapshot(decoding: written.encoded()))
        #expect(read == written)
        #expect(read.keys.entries.map(\.numbers) == [[5], [1, 2, 3], [2, 6], [4]])
    }

    @Test func removingAndRefillingWorkInPlaceAndAMergeDropsWhatWasTakenOut() {
        var index = FlatIndex(keys: Self.keys)
        let run = index.slot(of: Digest128(high: 2, low: 7))!
        let removed = index.remove(2, at: run)
        let again = index.remove(2, at: run)
        #expect(removed && !again, "taken out, then already out")
        #expect(Array(index.numbers(at: run)) == [1, 3])
        let single = index.slot(of: Digest128(high: 9, low: 1))!
        let emptied = index.remove(4, at: single)
        #expect(emptied && index.numbers(at: single).isEmpty)
        let refilled = index.refill(8, at: single)
        let taken = index.refill(9, at: single)
        let intoRun = index.refill(9, at: run)
        #expect(refilled && !taken && !intoRun, "a single's empty place takes one number; a run has none")
        let merged = index.merged(with: [(Digest128(high: 2, low: 7), [9]), (Digest128(high: 3, low: 0), [1])])
        #expect(merged.entries.map(\.numbers) == [[5], [1, 3, 9], [1], [2, 6], [8]])
        #expect(merged.isWellFormed)
    }

    enum Plant: CaseIterable {
        case singlesOutOfOrder, zeroNumber, runPastTheEnd, runsOverlapping, runOfOne, runOutOfOrder, keyInBoth
    }

    @Test(arguments: Plant.allCases)
    func aTableOutOfOrderOrBoundsMakesTheSnapshotUnusable(_ plant: Plant) {
        var index = FlatIndex(keys: Self.keys)
        switch plant {
        case .singlesOutOfOrder: index.singles = [9, 1, 4, 2, 3, 5]
        case .zeroNumber: index.singles[5] = 0
        case .runPastTheEnd: index.shared[5] = 3 << 32 | 9
        case .runsOverlapping: index.shared[5] = 2 << 32 | 3
        case .runOfOne:
            index.shared[5] = 3 << 32 | 1
            index.postings.removeLast()
        case .runOutOfOrder: index.postings = [1, 3, 2, 2, 6]
        case .keyInBoth: index.singles = [2, 3, 5, 2, 7, 4]
        }
        #expect(!index.isWellFormed)
        #expect(IndexSnapshot(decoding: snapshot(index).encoded()) == nil)
    }

    @Test func aCountLargerThanTheFileAllocatesNothingAndFails() throws {
        var bytes = snapshot(FlatIndex(keys: Self.keys)).encoded()
        // The singles' count (2) and its first entry (2, 3, 5), as written.
        let table = [UInt64]([2, 2, 3, 5]).flatMap { word in withUnsafeBytes(of: word.littleEndian) { Array($0) } }
        let singles = try #require(
            (0...bytes.count - table.count).first { bytes[$0..<$0 + table.count].elementsEqual(table) })
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt64.max.littleEndian, toByteOffset: singles, as: UInt64.self)
        }
        // Its checksum made again (it is no secret), so only the count is wrong.
        let payload = Array(bytes[16..<bytes.count - 32])
        bytes.replaceSubrange(bytes.count - 32..<bytes.count, with: ContentDigest.digest(payload))
        #expect(IndexSnapshot(decoding: bytes) == nil)
    }
}
