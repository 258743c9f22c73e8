// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension CollectionVault {
    /// What ``readable`` holds: the items and their settings, and the key while the collection
    /// is open.
    struct ReadableCollection {
        var items = ItemTable()
        var settings: [UInt64: ItemSettings] = [:]
        var index = AttributeIndex()
        /// Whether ``index`` answers for every item (``CollectionVault/isIndexed``).
        var isIndexed = false
        var isLocked = true
        /// Nil while locked: taken out before the key is wiped.
        var key: ItemKey?

        /// Numbers of the items whose attributes include every pair of `query`, in creation order,
        /// from the index alone whether locked or open: its digests are keyed 128-bit BLAKE2b, so
        /// a false hit is a 2⁻¹²⁸ event. A collection without its index finds nothing.
        func search(_ query: Attributes) -> [UInt64] {
            guard isIndexed else { return [] }
            // An index snapshot is not authenticated: a number it names that holds no item is no hit.
            return index.intersection(for: query)?.filter { items[$0] != nil } ?? items.numbers
        }
    }

    /// Puts the key that opens the items where the bus thread reads it while the collection is
    /// open and unlocked, and takes it away otherwise.
    func publishKey() {
        readable.value.key = state.keys.map {
            ItemKey(sealer: $0.records, space: space, format: format, records: records)
        }
        readable.value.isLocked = isLocked
    }
}
