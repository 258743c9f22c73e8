// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import Testing

@testable import PuffService

/// The attribute index laid flat (design core-reshaped §4.2): a sorted base, what was added since
/// beside it, merged by ``AttributeIndex/compact()``. Whatever the mix of base and additions, it
/// answers exactly what a plain list of items would.
@Suite struct FlatAttributeIndexTests {
    /// A deterministic generator (the same run every time).
    struct Steps: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11 ^ state
        }
    }

    /// What the index should answer: the live items' attributes.
    struct Model {
        var items: [UInt64: Attributes] = [:]

        func matching(_ query: Attributes) -> [UInt64] {
            items.filter { item in query.allSatisfy { item.value[$0.key] == $0.value } }.keys.sorted()
        }

        func exactly(_ attributes: Attributes) -> [UInt64] {
            items.filter { $0.value == attributes }.keys.sorted()
        }
    }

    static func attributes(_ steps: inout Steps) -> Attributes {
        var attributes: Attributes = ["service": "s\(steps.next() % 2)"]
        if steps.next() % 3 != 0 { attributes["user"] = "u\(steps.next() % 40)" }
        if steps.next() % 2 == 0 { attributes["group"] = "g\(steps.next() % 4)" }
        return attributes
    }

    static let queries: [Attributes] =
        [["service": "s0"], ["service": "s1"], ["group": "g1"], ["service": "s1", "group": "g2"]]
        + (0..<40).map { ["user": "u\($0)"] } + (0..<40).map { ["service": "s0", "user": "u\($0)"] }

    /// Every query's hits and every item's exact-set candidates agree with the model.
    func expectAgrees(_ index: AttributeIndex, _ model: Model, _ step: Int) {
        for query in Self.queries {
            #expect(index.intersection(for: query) == model.matching(query), "step \(step), \(query)")
            let candidates = index.candidates(for: query) ?? []
            #expect(Set(model.matching(query)).isSubset(of: candidates), "step \(step), \(query)")
        }
        for (number, attributes) in model.items {
            let exact = index.candidates(exactlyMatching: index.digests(of: AttributeList(attributes)))
            #expect(exact == model.exactly(attributes), "step \(step), item \(number)")
        }
    }

    @Test func insertsRemovalsMergesAndSnapshotsAnswerAsAPlainListWould() {
        var steps = Steps(state: 27)
        var index = AttributeIndex(hasher: KeyedHash())
        var model = Model()
        var next: UInt64 = 1
        for step in 0..<1500 {
            let roll = steps.next() % 100
            if roll < 55 || model.items.isEmpty {
                // A new item, or one replaced under its own number (a lower one than the newest).
                let number = roll % 5 == 0 && !model.items.isEmpty ? model.items.keys.min()! : next
                if let old = model.items[number] { index.remove(number, attributes: AttributeList(old)) }
                let attributes = Self.attributes(&steps)
                index.insert(number, attributes: AttributeList(attributes))
                model.items[number] = attributes
                if number == next { next += 1 }
            } else if roll < 85 {
                let number = model.items.keys.sorted()[Int(steps.next() % UInt64(model.items.count))]
                let tags = index.tags(of: AttributeList(model.items[number]!))
                tags.withUnsafeBytes { index.remove(number, tags: $0) }
                model.items[number] = nil
            } else if roll < 93 {
                index.compact()
                #expect(index.counts.added == 0)
            } else {
                // What a snapshot keeps and the next start loads.
                index = AttributeIndex(hasher: index.hasher, flat: index.flat)
            }
            if step % 50 == 0 || roll >= 85 { expectAgrees(index, model, step) }
        }
        expectAgrees(index, model, 1500)
    }

    @Test func anItemTakenOutOfTheBaseAndFiledAgainIsFoundOnceInOrder() {
        var index = AttributeIndex(hasher: KeyedHash())
        for number: UInt64 in 1...4 { index.insert(number, attributes: AttributeList(["s": "x", "u": "u\(number)"])) }
        index.compact()
        // 2 leaves the shared key and its single key, then comes back under both.
        index.remove(2, attributes: AttributeList(["s": "x", "u": "u2"]))
        #expect(index.intersection(for: ["s": "x"]) == [1, 3, 4])
        #expect(index.intersection(for: ["u": "u2"]) == [])
        index.insert(2, attributes: AttributeList(["s": "x", "u": "u2"]))
        index.insert(5, attributes: AttributeList(["s": "x", "u": "u2"]))
        #expect(index.intersection(for: ["s": "x"]) == [1, 2, 3, 4, 5])
        #expect(index.intersection(for: ["u": "u2"]) == [2, 5])
        #expect(index.counts.added > 0, "5 and 2 under the shared key wait beside the base")
        index.compact()
        #expect(index.intersection(for: ["s": "x", "u": "u2"]) == [2, 5])
        let counts = index.counts
        #expect(counts.keys == 9 && counts.numbers == 15 && counts.added == 0, "\(counts)")
    }

    @Test func additionsAreMergedOnceTheyOutgrowAQuarterOfTheBase() {
        var index = AttributeIndex(hasher: KeyedHash())
        let key = Digest128(high: 1, low: 2).bytes
        func add(_ number: UInt64) { key.withUnsafeBytes { index.insert(number, tags: $0) } }
        for number in 1...UInt64(AttributeIndex.smallestMerge) { add(number) }
        #expect(index.counts.added == 0, "1,024 numbers added to an empty base were merged")
        #expect(index.counts.numbers == AttributeIndex.smallestMerge)
        add(5000)
        #expect(index.counts.added == 1, "one more waits: a quarter of the base is 256, but 1,024 is the least")
        #expect(index.numbers(under: Digest128(high: 1, low: 2)).last == 5000)
    }
}
