// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// A blind index laid flat (design core-reshaped §4.2): what an ``IndexSnapshot`` keeps and the
/// attribute index searches, with no allocation per key. A key naming one item is a
/// `(digest, number)` entry; a key shared by several is a `(digest, run)` entry into one array of
/// posting lists. Both tables are sorted by digest (`high`, then `low`), so a key is found by
/// binary search and a snapshot's tables load with one copy each.
public struct FlatIndex: Sendable, Equatable {
    /// A key's place: an entry of ``singles`` or of ``shared``.
    public enum Slot: Sendable, Equatable {
        case single(Int)
        case shared(Int)
    }

    /// `high, low, number` per key naming one item, ascending by digest; number 0: taken out.
    public internal(set) var singles: [UInt64] = []
    /// `high, low, start << 32 | count` per key naming several, ascending by digest; the key's
    /// numbers are `postings[start..<start + count]`, ascending.
    public internal(set) var shared: [UInt64] = []
    /// The shared keys' runs of item numbers, in the order of their keys.
    public internal(set) var postings: [UInt64] = []

    /// An empty index.
    public init() {}

    /// The index of `keys` (any order; each key's numbers ascending and above 0; empty keys left out).
    public init(keys: [(digest: Digest128, numbers: [UInt64])]) {
        self = FlatIndex().merged(
            with: keys.sorted { ($0.digest.high, $0.digest.low) < ($1.digest.high, $1.digest.low) })
    }

    /// How many numbers it holds under all its keys (a taken-out single counts until a merge).
    public var entryCount: Int { singles.count / 3 + postings.count }

    /// How many keys it has.
    public var keyCount: Int { singles.count / 3 + shared.count / 3 }

    /// Where `key` is, or nil.
    public func slot(of key: Digest128) -> Slot? {
        if let at = Self.search(singles, key) { return .single(at) }
        if let at = Self.search(shared, key) { return .shared(at) }
        return nil
    }

    /// The numbers at `slot`, ascending (a slice: nothing is copied).
    public func numbers(at slot: Slot) -> ArraySlice<UInt64> {
        switch slot {
        case .single(let at):
            singles[3 * at + 2] == 0 ? [] : singles[3 * at + 2..<3 * at + 3]
        case .shared(let at):
            postings[Self.run(shared[3 * at + 2])]
        }
    }

    /// Whether `number` is at `slot`.
    public func contains(_ number: UInt64, at slot: Slot) -> Bool {
        let numbers = numbers(at: slot)
        let at = Self.lowerBound(of: number, in: numbers)
        return at < numbers.endIndex && numbers[at] == number
    }

    /// Takes `number` out of the key at `slot`, in place; false when it was not there.
    @discardableResult
    public mutating func remove(_ number: UInt64, at slot: Slot) -> Bool {
        switch slot {
        case .single(let at):
            guard number != 0, singles[3 * at + 2] == number else { return false }
            singles[3 * at + 2] = 0
        case .shared(let at):
            let run = Self.run(shared[3 * at + 2])
            let found = Self.lowerBound(of: number, in: postings[run])
            guard found < run.upperBound, postings[found] == number else { return false }
            postings.withUnsafeMutableBufferPointer { words in
                for next in found..<run.upperBound - 1 { words[next] = words[next + 1] }
                words[run.upperBound - 1] = 0
            }
            shared[3 * at + 2] = UInt64(run.lowerBound) << 32 | UInt64(run.count - 1)
        }
        return true
    }

    /// Puts `number` in the place of a single key whose number was taken out; false otherwise.
    public mutating func refill(_ number: UInt64, at slot: Slot) -> Bool {
        guard case .single(let at) = slot, singles[3 * at + 2] == 0, number != 0 else { return false }
        singles[3 * at + 2] = number
        return true
    }

    /// This index with `additions` (ascending by digest, each key's numbers ascending) merged in:
    /// each key's numbers are the union, taken-out places are dropped, and a key left with one
    /// number becomes a single. Linear in both.
    public func merged(with additions: [(digest: Digest128, numbers: [UInt64])]) -> FlatIndex {
        var result = FlatIndex()
        result.singles.reserveCapacity(singles.count + 3 * additions.count)
        result.postings.reserveCapacity(
            postings.count + additions.reduce(0) { $0 + ($1.numbers.count > 1 ? $1.numbers.count : 0) })
        var single = 0
        var many = 0
        var added = 0
        let singleCount = singles.count / 3
        let sharedCount = shared.count / 3
        while single < singleCount || many < sharedCount || added < additions.count {
            // The smallest key of this index (its two tables never share a key), then of the additions.
            var key: (UInt64, UInt64)?
            var numbers: ArraySlice<UInt64> = []
            let fromSingles =
                single < singleCount
                && (many == sharedCount
                    || (singles[3 * single], singles[3 * single + 1]) < (shared[3 * many], shared[3 * many + 1]))
            if fromSingles {
                key = (singles[3 * single], singles[3 * single + 1])
                numbers = self.numbers(at: .single(single))
            } else if many < sharedCount {
                key = (shared[3 * many], shared[3 * many + 1])
                numbers = self.numbers(at: .shared(many))
            }
            let addedKey = added < additions.count ? (additions[added].digest.high, additions[added].digest.low) : nil
            if let key, addedKey.map({ key <= $0 }) ?? true {
                if fromSingles { single += 1 } else { many += 1 }
                if let addedKey, key == addedKey {
                    result.append(key, Self.union(numbers, additions[added].numbers[...]))
                    added += 1
                } else {
                    result.append(key, numbers)
                }
            } else if let addedKey {
                result.append(addedKey, additions[added].numbers[...])
                added += 1
            }
        }
        result.trim()
        return result
    }

    /// Every key and its numbers, in digest order (tests, tools).
    public var entries: [(digest: Digest128, numbers: [UInt64])] {
        var entries: [(digest: Digest128, numbers: [UInt64])] = []
        for at in 0..<singles.count / 3 where singles[3 * at + 2] != 0 {
            entries.append((Digest128(high: singles[3 * at], low: singles[3 * at + 1]), [singles[3 * at + 2]]))
        }
        for at in 0..<shared.count / 3 where !numbers(at: .shared(at)).isEmpty {
            entries.append((Digest128(high: shared[3 * at], low: shared[3 * at + 1]), Array(numbers(at: .shared(at)))))
        }
        return entries.sorted { ($0.digest.high, $0.digest.low) < ($1.digest.high, $1.digest.low) }
    }

    /// Each item's keys, 16 bytes each as its record's tags (in digest order).
    public func keysByNumber() -> [UInt64: [UInt8]] {
        var keys: [UInt64: [UInt8]] = [:]
        func add(_ high: UInt64, _ low: UInt64, to number: UInt64) {
            guard number != 0 else { return }
            keys[number, default: []].append(contentsOf: Digest128(high: high, low: low).bytes)
        }
        for at in 0..<singles.count / 3 { add(singles[3 * at], singles[3 * at + 1], to: singles[3 * at + 2]) }
        for at in 0..<shared.count / 3 {
            for number in numbers(at: .shared(at)) { add(shared[3 * at], shared[3 * at + 1], to: number) }
        }
        return keys
    }

    /// Appends a key after every key already here, unless it has no number.
    mutating func append(_ key: (UInt64, UInt64), _ numbers: some Collection<UInt64>) {
        let count = numbers.count { $0 != 0 }
        if count == 1, let only = numbers.first(where: { $0 != 0 }) {
            singles.append(key.0)
            singles.append(key.1)
            singles.append(only)
        } else if count > 1 {
            shared.append(key.0)
            shared.append(key.1)
            shared.append(UInt64(postings.count) << 32 | UInt64(count))
            for number in numbers where number != 0 { postings.append(number) }
        }
    }

    /// Gives back what a merge reserved and did not fill (more than an eighth).
    private mutating func trim() {
        if singles.capacity > singles.count + singles.count / 8 { singles = Array(singles[...]) }
        if shared.capacity > shared.count + shared.count / 8 { shared = Array(shared[...]) }
        if postings.capacity > postings.count + postings.count / 8 { postings = Array(postings[...]) }
    }

    /// The numbers of a shared entry's `start << 32 | count` word.
    static func run(_ word: UInt64) -> Range<Int> {
        let start = Int(word >> 32)
        return start..<start + Int(word & 0xffff_ffff)
    }

    /// The entry of `table` (3 words each, ascending) whose digest is `key`.
    private static func search(_ table: [UInt64], _ key: Digest128) -> Int? {
        table.withUnsafeBufferPointer { words in
            var low = 0
            var high = words.count / 3
            while low < high {
                let middle = (low + high) / 2
                if (words[3 * middle], words[3 * middle + 1]) < (key.high, key.low) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            guard low < words.count / 3, words[3 * low] == key.high, words[3 * low + 1] == key.low else { return nil }
            return low
        }
    }

    /// The first index of `numbers` whose number is not below `number`.
    public static func lowerBound(of number: UInt64, in numbers: ArraySlice<UInt64>) -> Int {
        var low = numbers.startIndex
        var high = numbers.endIndex
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The ascending union of two ascending lists.
    public static func union(_ first: ArraySlice<UInt64>, _ second: ArraySlice<UInt64>) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(first.count + second.count)
        var a = first.startIndex
        var b = second.startIndex
        while a < first.endIndex || b < second.endIndex {
            if b == second.endIndex || (a < first.endIndex && first[a] < second[b]) {
                result.append(first[a])
                a += 1
            } else {
                if a < first.endIndex, first[a] == second[b] { a += 1 }
                result.append(second[b])
                b += 1
            }
        }
        return result
    }
}
