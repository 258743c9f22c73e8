// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

/// Intersecting posting lists, as a locked collection's blind-index search does: right answers,
/// and a cost that follows the shortest list rather than the longest.
@Suite struct SortedNumbersTests {
    /// An ascending list that counts how many of its numbers were read.
    final class CountingNumbers: RandomAccessCollection {
        let numbers: [UInt64]
        private(set) var reads = 0

        init(_ numbers: [UInt64]) { self.numbers = numbers }

        var startIndex: Int { numbers.startIndex }
        var endIndex: Int { numbers.endIndex }
        subscript(position: Int) -> UInt64 {
            reads += 1
            return numbers[position]
        }
    }

    @Test func oneItemAgainstAHundredThousandReadsAFewNumbersNotAll() {
        // `user=u4242` (one item) with `service=bench` and `run=…` (every item): the search a
        // client makes for one secret in a locked collection of 100,000.
        let everyItem = CountingNumbers(Array(1...100_000))
        let alsoEveryItem = CountingNumbers(Array(1...100_000))
        let found = SortedNumbers.intersection(of: [4242], with: [everyItem, alsoEveryItem])
        #expect(found == [4242])
        #expect(everyItem.reads <= 40)
        #expect(alsoEveryItem.reads <= 40)
    }

    @Test func aHundredHitsReadOnTheOrderOfAHundredLookupsNotTheWholeList() {
        let group = Array(UInt64(50_001)...UInt64(50_100))
        let everyItem = CountingNumbers(Array(1...100_000))
        #expect(SortedNumbers.intersection(of: group, with: [everyItem]) == group)
        #expect(everyItem.reads <= 100 * 20)
    }

    @Test(arguments: [1, 2, 3, 7])
    func theResultIsWhatASetIntersectionGivesInAscendingOrder(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        let lists = (0..<4).map { _ in
            Array(Set((0..<Int(generator.next() % 300)).map { _ in generator.next() % 500 })).sorted()
        }
        let shortest = lists.min { $0.count < $1.count }!
        let expected = lists.reduce(Set(shortest)) { $0.intersection($1) }.sorted()
        #expect(SortedNumbers.intersection(of: shortest, with: lists) == expected)
    }

    @Test func anEmptyListOrANumberBeyondEveryListFindsNothing() {
        #expect(SortedNumbers.intersection(of: [], with: [[1, 2, 3]]).isEmpty)
        #expect(SortedNumbers.intersection(of: [1, 2], with: [[UInt64]]()) == [1, 2])
        #expect(SortedNumbers.intersection(of: [9], with: [[1, 2, 3]]).isEmpty)
        #expect(SortedNumbers.intersection(of: [2, 3], with: [[1, 3], [3, 4]]) == [3])
    }

    @Test func theInsertionPointIsTheFirstNumberNotBelowFromTheGivenStart() {
        let numbers: [UInt64] = [2, 4, 4, 8]
        #expect(SortedNumbers.insertionPoint(of: 1, in: numbers) == 0)
        #expect(SortedNumbers.insertionPoint(of: 4, in: numbers) == 1)
        #expect(SortedNumbers.insertionPoint(of: 5, in: numbers) == 3)
        #expect(SortedNumbers.insertionPoint(of: 9, in: numbers) == 4)
        #expect(SortedNumbers.insertionPoint(of: 2, in: numbers, from: 2) == 2)
    }

    /// A small deterministic generator, so a failure repeats.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
