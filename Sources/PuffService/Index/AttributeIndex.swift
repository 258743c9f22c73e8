// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto
package import PuffStore

/// One collection's attribute index: each `name=value` pair, and each whole attribute set, to the
/// numbers of the items that have it, in creation order (architecture.md Part A item 9).
///
/// Keys are keyed BLAKE2b digests (``KeyedHash``) of the exact UTF-8 bytes, so the same index can
/// serve a locked collection as a blind index: it answers "which items have this pair" for a query
/// without holding any value. Digests are candidates only; callers check the real attributes, so a
/// (2^-128) collision can never return a wrong item.
package struct AttributeIndex: Sendable {
    /// Item numbers under one key; most keys name a single item, which then costs no allocation.
    private enum Posting {
        case one(UInt64)
        /// A list grown in place: a class, so adding to a key shared by 100,000 items never copies
        /// the list (an array inside an enum payload would be copied on every change).
        case many(PostingList)

        var numbers: [UInt64] {
            switch self {
            case .one(let number): [number]
            case .many(let list): list.numbers
            }
        }

        var count: Int {
            switch self {
            case .one: 1
            case .many(let list): list.numbers.count
            }
        }
    }

    // @unchecked: a list belongs to one index, which one actor (or, while it is built off the
    // actor, one task) owns at a time.
    private final class PostingList: @unchecked Sendable {
        var numbers: [UInt64]
        init(_ numbers: [UInt64]) { self.numbers = numbers }
    }

    private let hasher: KeyedHash
    private var postings: [Digest128: Posting] = [:]

    /// An empty index whose keys are digests under `hasher`.
    package init(hasher: KeyedHash = KeyedHash()) {
        self.hasher = hasher
    }

    /// The index a snapshot kept (``IndexSnapshot``): its keys as they are, no digest computed.
    init(hasher: KeyedHash, keys: [IndexSnapshot.Key]) {
        self.hasher = hasher
        postings.reserveCapacity(keys.count)
        for key in keys where !key.numbers.isEmpty {
            postings[key.digest] = key.numbers.count == 1 ? .one(key.numbers[0]) : .many(PostingList(key.numbers))
        }
    }

    /// Every key and its item numbers, for an ``IndexSnapshot``.
    var snapshotKeys: [IndexSnapshot.Key] {
        postings.map { IndexSnapshot.Key(digest: $0.key, numbers: $0.value.numbers) }
    }

    /// Adds item `number` under each pair of `attributes` and under the whole set.
    mutating func insert(_ number: UInt64, attributes: AttributeList) {
        insert(number, digests: digests(of: attributes))
    }

    /// Adds item `number` under the keys of `digests` (made by ``digests(of:)``).
    mutating func insert(_ number: UInt64, digests: AttributeDigests) {
        for key in digests.pairs { add(number, under: key) }
        add(number, under: digests.set)
    }

    /// The keyed digests of `attributes` under this index's key: compute them once per write and
    /// hand them to ``insert(_:digests:)``, ``candidates(exactlyMatching:)`` and the record's tags.
    func digests(of attributes: AttributeList) -> AttributeDigests {
        AttributeDigests(of: attributes, hasher: hasher)
    }

    /// The key of the single pair `name=value`.
    func pairDigest(_ name: String, _ value: String) -> Digest128 {
        AttributeDigests.pair(name, value, hasher: hasher)
    }

    /// Items filed under `key`, in creation order.
    func numbers(under key: Digest128) -> [UInt64] {
        postings[key]?.numbers ?? []
    }

    /// Adds item `number` under the keys in `tags` (16 bytes each, as ``tags(of:)`` made them).
    mutating func insert(_ number: UInt64, tags: UnsafeRawBufferPointer) {
        for start in stride(from: 0, to: tags.count - 15, by: 16) {
            add(number, under: Digest128(bytes: UnsafeRawBufferPointer(rebasing: tags[start..<start + 16])))
        }
    }

    /// Removes item `number` from the keys in `tags`.
    mutating func remove(_ number: UInt64, tags: UnsafeRawBufferPointer) {
        for start in stride(from: 0, to: tags.count - 15, by: 16) {
            drop(number, from: Digest128(bytes: UnsafeRawBufferPointer(rebasing: tags[start..<start + 16])))
        }
    }

    /// The keys of `attributes` as record tags: 16 bytes per pair, then 16 for the whole set.
    package func tags(of attributes: AttributeList) -> [UInt8] {
        digests(of: attributes).tags
    }

    /// Removes item `number` from the keys of `attributes` (the attributes it was inserted with).
    mutating func remove(_ number: UInt64, attributes: AttributeList) {
        for key in keys(of: attributes) { drop(number, from: key) }
    }

    /// Items that may have every pair of `query`, in creation order: the shortest posting list
    /// among the query's pairs. Nil for an empty query, which matches every item.
    func candidates(for query: Attributes) -> [UInt64]? {
        guard !query.isEmpty else { return nil }
        var shortest: Posting?
        for (name, value) in query {
            guard let posting = postings[pairKey(name, value)] else { return [] }
            if shortest == nil || posting.count < shortest!.count { shortest = posting }
        }
        return shortest?.numbers ?? []
    }

    /// Items whose keys include every pair of `query`, in creation order, from the index alone:
    /// how a locked collection whose attributes are not in memory is searched (a false match needs
    /// a 128-bit keyed-hash collision). Nil for an empty query.
    ///
    /// The cost follows the shortest posting list, not the longest: `service=x` shared by 100,000
    /// items does not make a search for one `user=y` read 100,000 numbers.
    func intersection(for query: Attributes) -> [UInt64]? {
        guard !query.isEmpty else { return nil }
        var lists: [[UInt64]] = []
        for (name, value) in query {
            guard let posting = postings[pairKey(name, value)] else { return [] }
            lists.append(posting.numbers)
        }
        lists.sort { $0.count < $1.count }
        return SortedNumbers.intersection(of: lists[0], with: lists.dropFirst())
    }

    /// Items that may have exactly the set whose digests are `digests`, in creation order.
    func candidates(exactlyMatching digests: AttributeDigests) -> [UInt64] {
        numbers(under: digests.set)
    }

    // MARK: - Keys

    private func keys(of attributes: AttributeList) -> [Digest128] {
        digests(of: attributes).keys
    }

    private func pairKey(_ name: String, _ value: String) -> Digest128 {
        pairDigest(name, value)
    }

    // MARK: - Postings

    private mutating func add(_ number: UInt64, under key: Digest128) {
        switch postings[key] {
        case nil:
            postings[key] = .one(number)
        case .one(let only)?:
            guard only != number else { return }
            postings[key] = .many(PostingList(only < number ? [only, number] : [number, only]))
        case .many(let list)?:
            // New items have the highest number, so this is almost always an append.
            if let last = list.numbers.last, last < number {
                list.numbers.append(number)
            } else {
                let at = SortedNumbers.insertionPoint(of: number, in: list.numbers)
                if at == list.numbers.count || list.numbers[at] != number { list.numbers.insert(number, at: at) }
            }
        }
    }

    private mutating func drop(_ number: UInt64, from key: Digest128) {
        switch postings[key] {
        case nil:
            return
        case .one(let only)?:
            if only == number { postings[key] = nil }
        case .many(let list)?:
            let at = SortedNumbers.insertionPoint(of: number, in: list.numbers)
            if at < list.numbers.count, list.numbers[at] == number { list.numbers.remove(at: at) }
            if list.numbers.count == 1 { postings[key] = .one(list.numbers[0]) }
        }
    }
}

/// Binary search and intersection on ascending lists of item numbers (posting lists).
package enum SortedNumbers {
    /// The first index at or after `start` whose number is not below `number`.
    package static func insertionPoint<Numbers: RandomAccessCollection<UInt64>>(
        of number: UInt64, in numbers: Numbers, from start: Numbers.Index? = nil
    ) -> Numbers.Index {
        var low = start ?? numbers.startIndex
        var high = numbers.endIndex
        while low < high {
            let middle = numbers.index(low, offsetBy: numbers.distance(from: low, to: high) / 2)
            if numbers[middle] < number { low = numbers.index(after: middle) } else { high = middle }
        }
        return low
    }

    /// The numbers of `shortest` that are also in every list of `others`, ascending.
    ///
    /// Each number of `shortest` is looked up in the others by binary search, starting where the
    /// previous one was found: about `shortest.count × log(other.count)` reads, so a one-item
    /// list intersected with a 100,000-item one reads some 17 numbers of it, not 100,000.
    package static func intersection<Numbers: RandomAccessCollection<UInt64>>(
        of shortest: [UInt64], with others: some Collection<Numbers>
    ) -> [UInt64] {
        var starts = others.map(\.startIndex)
        var result: [UInt64] = []
        next: for number in shortest {
            for (i, list) in zip(starts.indices, others) {
                let at = insertionPoint(of: number, in: list, from: starts[i])
                starts[i] = at
                guard at != list.endIndex, list[at] == number else { continue next }
            }
            result.append(number)
        }
        return result
    }
}
