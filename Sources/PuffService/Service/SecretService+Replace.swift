// SPDX-License-Identifier: Apache-2.0
import PuffStore

extension SecretService {
    /// The item a `CreateItem` of `attributes` replaces in `state`, if any: with `replace`, the
    /// oldest item with exactly these attributes; else, or failing that, under
    /// ``ItemRules/uniqueInternet``, the oldest internet password with the same key.
    ///
    /// The key's candidates come from the attribute index (items with the same value of the
    /// attribute the server was read from), so the cost follows how many items share the server,
    /// not how many the collection holds; each candidate is mapped once, O(its attributes).
    func replacedItem(in state: CollectionVault, attributes: Attributes, replace: Bool) -> UInt64? {
        if replace, let number = state.exactMatch(attributes) { return number }
        guard itemRules.uniqueInternet, case .internet(let new) = itemRules.mappers.record(from: attributes),
            let key = new.uniqueKey, let name = new.serverAttribute, let value = attributes[name]
        else { return nil }
        return state.search([name: value]).first { number in
            guard let old = state.items[number],
                case .internet(let candidate) = itemRules.mappers.record(from: old.attributes)
            else { return false }
            return candidate.uniqueKey == key
        }
    }
}
