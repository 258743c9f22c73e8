// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension SecretService {
    /// The item a `CreateItem` of `attributes` replaces in `state`, if any: with `replace`, the
    /// oldest item with exactly these attributes; else, or failing that, under
    /// ``ItemRules/uniqueInternet``, the oldest internet password with the same key.
    ///
    /// `digests` are `attributes`' (``CollectionVault/digests(of:)``): the lookups hash nothing
    /// again. The key's candidates come from the attribute index (items with the same value of the
    /// attribute the server was read from), so the cost follows how many items share the server,
    /// not how many the collection holds; each candidate is mapped once, O(its attributes).
    func replacedItem(
        in state: CollectionVault, attributes: AttributeList, digests: AttributeDigests, replace: Bool
    ) -> UInt64? {
        if replace, let number = state.exactMatch(attributes, digests: digests) { return number }
        guard itemRules.uniqueInternet,
            case .internet(let new) = itemRules.mappers.record(from: attributes.dictionary),
            let key = new.uniqueKey, let name = new.serverAttribute,
            let at = attributes.pairs.firstIndex(where: { $0.name == name })
        else { return nil }
        return state.numbers(under: digests.pairs[at]).first { number in
            guard let old = state.items[number],
                case .internet(let candidate) = itemRules.mappers.record(from: old.attributes)
            else { return false }
            return candidate.uniqueKey == key
        }
    }

    /// The index keys ``replacedItem(in:attributes:digests:replace:)`` looks items up under: the
    /// whole set's with `replace`, and under ``ItemRules/uniqueInternet`` the server's pair.
    /// A pending write filed under one of them is waited for before the lookup.
    func replaceKeys(_ attributes: AttributeList, digests: AttributeDigests, replace: Bool) -> [Digest128] {
        var keys = replace ? [digests.set] : []
        if itemRules.uniqueInternet, case .internet(let new) = itemRules.mappers.record(from: attributes.dictionary),
            new.uniqueKey != nil, let name = new.serverAttribute,
            let at = attributes.pairs.firstIndex(where: { $0.name == name })
        {
            keys.append(digests.pairs[at])
        }
        return keys
    }
}
