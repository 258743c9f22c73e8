// SPDX-License-Identifier: Apache-2.0

/// An item's attributes as stored: name–value pairs sorted by the bytes of the name.
///
/// A `[String: String]` of five attributes keeps a hash table of eight buckets (about 330 bytes
/// with its header); the same pairs in a sorted array take about 190. At 100,000 items that is
/// 14 MB of the daemon's resident memory. Values are kept exactly as the client sent them.
public struct AttributeList: Sendable {
    /// One attribute.
    public struct Pair: Sendable {
        public let name: String
        public let value: String
    }

    /// The pairs, sorted by the UTF-8 bytes of their names.
    public let pairs: [Pair]

    /// The attributes of `dictionary`.
    public init(_ dictionary: [String: String]) {
        pairs = dictionary.map { Pair(name: $0.key, value: $0.value) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// How many attributes there are.
    public var count: Int { pairs.count }

    /// The attributes as a dictionary, as clients see them.
    public var dictionary: [String: String] {
        Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The value of the attribute whose name has exactly the bytes of `name`.
    public func value(named name: String) -> String? {
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if pairs[middle].name.utf8.lexicographicallyPrecedes(name.utf8) { low = middle + 1 } else { high = middle }
        }
        guard low < pairs.count, pairs[low].name.utf8.elementsEqual(name.utf8) else { return nil }
        return pairs[low].value
    }

    /// Whether every pair of `query` is among these attributes, byte for byte.
    public func contains(_ query: [String: String]) -> Bool {
        query.allSatisfy { pair in value(named: pair.key).map { $0.utf8.elementsEqual(pair.value.utf8) } ?? false }
    }

    /// Whether `other` holds exactly the same names and values, byte for byte.
    public func hasSameBytes(as other: AttributeList) -> Bool {
        pairs.count == other.pairs.count
            && zip(pairs, other.pairs).allSatisfy {
                $0.name.utf8.elementsEqual($1.name.utf8) && $0.value.utf8.elementsEqual($1.value.utf8)
            }
    }
}
