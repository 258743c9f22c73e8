// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto
package import PuffStore

/// An attribute set's keyed digests, computed once per write (design core-reshaped §2): one per
/// pair in the set's order, then one for the whole set. They are the record's blind index tags,
/// the attribute index's keys and the exact-set key a `CreateItem` with `replace` looks up.
package struct AttributeDigests: Sendable {
    /// One digest per pair of the set, in ``AttributeList`` order.
    package let pairs: [Digest128]
    /// The digest of the whole set.
    package let set: Digest128

    /// Every key the index files an item under: the pairs', then the set's.
    package var keys: [Digest128] { pairs + [set] }

    /// The keys as record tags: 16 bytes per pair, then 16 for the whole set.
    package var tags: [UInt8] {
        var tags: [UInt8] = []
        tags.reserveCapacity(16 * (pairs.count + 1))
        for key in keys { tags += key.bytes }
        return tags
    }

    /// The digests of `attributes` under `hasher`.
    package init(of attributes: AttributeList, hasher: KeyedHash) {
        var encodedSet: [UInt8] = [0x73]  // "s": a whole set, pairs in byte order of their names
        var pairs: [Digest128] = []
        pairs.reserveCapacity(attributes.count)
        for pair in attributes.pairs {
            var encoded: [UInt8] = [0x70]  // "p": a single pair
            Self.append(pair.name, to: &encoded)
            Self.append(pair.value, to: &encoded)
            pairs.append(hasher.digest(encoded))
            encodedSet += encoded.dropFirst()
        }
        self.pairs = pairs
        set = hasher.digest(encodedSet)
    }

    /// The digest of the single pair `name=value` under `hasher`.
    package static func pair(_ name: String, _ value: String, hasher: KeyedHash) -> Digest128 {
        var encoded: [UInt8] = [0x70]
        append(name, to: &encoded)
        append(value, to: &encoded)
        return hasher.digest(encoded)
    }

    /// Appends a length-prefixed string, so `("ab","c")` and `("a","bc")` encode differently.
    private static func append(_ text: String, to encoded: inout [UInt8]) {
        let count = UInt32(truncatingIfNeeded: text.utf8.count)
        withUnsafeBytes(of: count.littleEndian) { encoded.append(contentsOf: $0) }
        encoded.append(contentsOf: text.utf8)
    }
}
