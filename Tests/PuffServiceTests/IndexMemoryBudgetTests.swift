// SPDX-License-Identifier: Apache-2.0
import CSodium
import PuffCrypto
import PuffStore
import Testing

@testable import PuffService

/// What the blind index of 100,000 items costs in memory (design core-reshaped §5: RSS ≤ 64 MiB
/// at 100,000 items; the dictionary it replaces took about 19 MiB), measured by glibc's own count
/// of the bytes it handed out (`mallinfo2`).
@Suite(.serialized) struct IndexMemoryBudgetTests {
    static let items = 100_000
    /// The flat tables: 200,000 single keys of 24 bytes, 300,000 shared numbers of 8, and slack.
    static let budget = 8 << 20

    /// Keys as the bench's items have them: `service` and `run` shared by all, a `group` per 100
    /// items, and each item's own `user` and whole set.
    static func keys() -> [(digest: Digest128, numbers: [UInt64])] {
        var steps = FlatAttributeIndexTests.Steps(state: 5)
        var keys: [(digest: Digest128, numbers: [UInt64])] = []
        let everyItem = (1...UInt64(items)).map { $0 }
        keys.append((Digest128(high: steps.next(), low: 1), everyItem))
        keys.append((Digest128(high: steps.next(), low: 2), everyItem))
        for group in 0..<items / 100 {
            keys.append((Digest128(high: steps.next(), low: 3), (1...100).map { UInt64(group * 100 + $0) }))
        }
        for number in everyItem {
            keys.append((Digest128(high: steps.next(), low: 4), [number]))
            keys.append((Digest128(high: steps.next(), low: 5), [number]))
        }
        return keys
    }

    /// The bytes `make`'s index holds once made (the median of `makes` makes: the test runtime
    /// allocates and frees meanwhile). Blocks of 64 KiB or more are mmapped for the duration, so
    /// the index's tables are counted whatever thread's arena they come from.
    static func bytesHeld(makes: Int = 5, by make: () -> AttributeIndex) -> Int {
        _ = puff_set_mmap_threshold(64 << 10)
        var samples: [Int] = []
        for _ in 0..<makes {
            let before = Int(puff_heap_in_use())
            let index = make()
            samples.append(Int(puff_heap_in_use()) - before)
            withExtendedLifetime(index) {}
        }
        return samples.sorted()[makes / 2]
    }

    @Test func theIndexOf100000ItemsLoadedFromASnapshotHoldsUnder8MiB() throws {
        let snapshot = IndexSnapshot(
            journalLength: 0, version: 2, lastRecordOffset: 0, lastTag: [], tipSequence: 0, firstSequence: 0,
            nextNumber: UInt64(Self.items + 1), deadRecords: 0, hasCollectionRecord: true, items: [], settings: [],
            keys: FlatIndex(keys: Self.keys())
        ).encoded()
        let hasher = KeyedHash()
        let held = Self.bytesHeld {
            AttributeIndex(hasher: hasher, flat: IndexSnapshot(decoding: snapshot)!.keys)
        }
        #expect(held < Self.budget, "\(held) bytes")
        #expect(held > 4 << 20, "the 200,000 single keys alone are 4.8 MB: \(held) bytes counted")
    }

    @Test func theIndexOf100000ItemsFiledOneByOneHoldsUnder8MiBOnceCompacted() {
        let keys = Self.keys()
        var tags: [UInt64: [UInt8]] = [:]
        for key in keys {
            for number in key.numbers { tags[number, default: []] += key.digest.bytes }
        }
        // Three makes, not five: 500,000 inserts each take 2 s in a debug build, and the heap
        // suites run in a process of their own, one test at a time (Makefile ALONE_TESTS).
        let held = Self.bytesHeld(makes: 3) {
            var index = AttributeIndex(hasher: KeyedHash())
            for number in 1...UInt64(Self.items) { tags[number]!.withUnsafeBytes { index.insert(number, tags: $0) } }
            index.compact()
            return index
        }
        #expect(held < Self.budget, "\(held) bytes")
        #expect(held > 4 << 20, "the 200,000 single keys alone are 4.8 MB: \(held) bytes counted")
    }
}
