// SPDX-License-Identifier: Apache-2.0
/// What `puffctl search` matches: text anywhere in an item's label or attribute values, case
/// ignored (Unicode lower case, so `É` finds `é`). Attribute names are not searched: every
/// item of a schema has the same ones.
enum ItemSearch {
    /// Whether `item`'s label or one of its attribute values contains `text`, ignoring case.
    static func matches(_ item: ItemSummary, _ text: String) -> Bool {
        let fields = [item.label ?? ""] + (item.attributes ?? [:]).values
        let wanted = text.lowercased()
        return fields.contains { $0.lowercased().contains(wanted) }
    }
}
