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
///
/// Laid flat (design core-reshaped §4.2): a ``FlatIndex`` base (sorted tables, no allocation per
/// key, what an index snapshot loads with one copy) and a small dictionary of what was added
/// since, merged into a new base once it grows past a quarter of the base (``compact()``).
/// Removals take numbers out of the base in place.
package struct AttributeIndex: Sendable {
    /// Item numbers a key gained since the base was made; most such keys name a single item.
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
    }

    // @unchecked: a list belongs to one index, which one actor (or, while it is built off the
    // actor, one task) owns at a time.
    private final class PostingList: @unchecked Sendable {
        var numbers: [UInt64]
        init(_ numbers: [UInt64]) { self.numbers = numbers }
    }

    /// A key's numbers: the base's run and the ones added since, each ascending, never both
    /// holding the same number.
    private struct Hits {
        let base: ArraySlice<UInt64>
        let added: [UInt64]

        var count: Int { base.count + added.count }
        var numbers: [UInt64] {
            added.isEmpty ? Array(base) : base.isEmpty ? added : FlatIndex.union(base, added[...])
        }

        func contains(_ number: UInt64) -> Bool {
            let at = FlatIndex.lowerBound(of: number, in: base)
            if at < base.endIndex, base[at] == number { return true }
            let other = FlatIndex.lowerBound(of: number, in: added[...])
            return other < added.endIndex && added[other] == number
        }
    }

    /// The fewest added numbers that make ``compact()`` worth running on its own.
    static let smallestMerge = 1024

    let hasher: KeyedHash
    private var base = FlatIndex()
    private var added: [Digest128: Posting] = [:]
    /// How many numbers ``added`` holds under all its keys.
    private var addedCount = 0

    /// An empty index whose keys are digests under `hasher`.
    package init(hasher: KeyedHash = KeyedHash()) {
        self.hasher = hasher
    }

    /// The index a snapshot kept (``IndexSnapshot``): its keys as they are, no digest computed.
    init(hasher: KeyedHash, flat: FlatIndex) {
        self.hasher = hasher
        base = flat
    }

    /// Every key and its item numbers, flat, for an ``IndexSnapshot``.
    var flat: FlatIndex { merged }

    /// The base with everything added since merged in.
    private var merged: FlatIndex {
        let additions = added.map { (digest: $0.key, numbers: $0.value.numbers) }
            .sorted { ($0.digest.high, $0.digest.low) < ($1.digest.high, $1.digest.low) }
        return base.merged(with: additions)
    }

    /// Merges what was added since the base into a new base (linear in the index, plus sorting
    /// the additions): after it, the index holds no allocation per key.
    package mutating func compact() {
        guard addedCount > 0 else { return }
        base = merged
        added = [:]
        addedCount = 0
    }

    /// How many keys and numbers it holds, and how many numbers wait outside the base.
    package var counts: (keys: Int, numbers: Int, added: Int) {
        (base.keyCount + added.count, base.entryCount + addedCount, addedCount)
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
        hits(key)?.numbers ?? []
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
        for key in digests(of: attributes).keys { drop(number, from: key) }
    }

    /// Items that may have every pair of `query`, in creation order: the shortest posting list
    /// among the query's pairs. Nil for an empty query, which matches every item.
    func candidates(for query: Attributes) -> [UInt64]? {
        guard !query.isEmpty else { return nil }
        var shortest: Hits?
        for (name, value) in query {
            guard let hits = hits(pairDigest(name, value)) else { return [] }
            if shortest == nil || hits.count < shortest!.count { shortest = hits }
        }
        return shortest?.numbers ?? []
    }

    /// Items whose keys include every pair of `query`, in creation order, from the index alone:
    /// how a locked collection whose attributes are not in memory is searched (a false match needs
    /// a 128-bit keyed-hash collision). Nil for an empty query.
    ///
    /// The cost follows the shortest posting list, not the longest: `service=x` shared by 100,000
    /// items does not make a search for one `user=y` read 100,000 numbers (each number of the
    /// shortest is looked up in the others by binary search).
    func intersection(for query: Attributes) -> [UInt64]? {
        guard !query.isEmpty else { return nil }
        var lists: [Hits] = []
        for (name, value) in query {
            guard let hits = hits(pairDigest(name, value)) else { return [] }
            lists.append(hits)
        }
        lists.sort { $0.count < $1.count }
        let others = lists.dropFirst()
        return lists[0].numbers.filter { number in others.allSatisfy { $0.contains(number) } }
    }

    /// Items that may have exactly the set whose digests are `digests`, in creation order.
    func candidates(exactlyMatching digests: AttributeDigests) -> [UInt64] {
        numbers(under: digests.set)
    }

    // MARK: - Postings

    private func hits(_ key: Digest128) -> Hits? {
        let fromBase = base.slot(of: key).map { base.numbers(at: $0) } ?? []
        let since = added.isEmpty ? [] : added[key]?.numbers ?? []
        guard !fromBase.isEmpty || !since.isEmpty else { return nil }
        return Hits(base: fromBase, added: since)
    }

    private mutating func add(_ number: UInt64, under key: Digest128) {
        if let slot = base.slot(of: key) {
            if base.contains(number, at: slot) || base.refill(number, at: slot) { return }
        }
        switch added[key] {
        case nil:
            added[key] = .one(number)
        case .one(let only)?:
            guard only != number else { return }
            added[key] = .many(PostingList(only < number ? [only, number] : [number, only]))
        case .many(let list)?:
            // New items have the highest number, so this is almost always an append.
            if let last = list.numbers.last, last < number {
                list.numbers.append(number)
            } else {
                let at = SortedNumbers.insertionPoint(of: number, in: list.numbers)
                guard at == list.numbers.count || list.numbers[at] != number else { return }
                list.numbers.insert(number, at: at)
            }
        }
        addedCount += 1
        if addedCount >= Self.smallestMerge, addedCount > base.entryCount / 4 { compact() }
    }

    private mutating func drop(_ number: UInt64, from key: Digest128) {
        if let slot = base.slot(of: key), base.remove(number, at: slot) { return }
        switch added[key] {
        case nil:
            return
        case .one(let only)?:
            guard only == number else { return }
            added[key] = nil
        case .many(let list)?:
            let at = SortedNumbers.insertionPoint(of: number, in: list.numbers)
            guard at < list.numbers.count, list.numbers[at] == number else { return }
            list.numbers.remove(at: at)
            if list.numbers.count == 1 { added[key] = .one(list.numbers[0]) }
        }
        addedCount -= 1
    }
}
