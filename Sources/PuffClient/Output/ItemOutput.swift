// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PuffText

/// How `list` prints: a table for people, JSON for scripts. Secrets are never fetched, so they
/// cannot be printed.
///
/// JSON is an array of `{"collection", "path", "label", "attributes", "created", "modified",
/// "locked", "kind", "fields"}`; times are seconds since the Unix epoch, `fields` holds the typed
/// fields (the port a number), and keys the daemon did not send (a collection never unlocked
/// since start lists paths only) are left out.
enum ItemOutput {
    /// `list` for people: one row per item, named by its typed view (``TypedView``), times in
    /// local time, attributes as sorted `key=value`.
    static func text(_ items: [ItemSummary]) -> String {
        guard !items.isEmpty else { return "no items" }
        var table = TextTable("PATH", "KIND", "ITEM", "CREATED", "MODIFIED", "ATTRIBUTES")
        for item in items {
            let attributes = (item.attributes ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            table.append(
                item.path, item.kind ?? "-", TypedView.name(of: item), time(item.created), time(item.modified),
                attributes.joined(separator: ", "))
        }
        return table.rendered
    }

    /// `list --json`.
    static func json(_ items: [ItemSummary]) -> String {
        JSONOutput.encode(items)
    }

    /// `show` for people: one field per line, attributes sorted by name, one per line; every
    /// value with its control characters escaped.
    static func detail(_ resolved: ResolvedItem) -> String {
        let item = resolved.item
        let collection = resolved.collection
        let collectionText =
            collection.label == collection.id ? collection.id : "\(collection.id) (\(collection.label))"
        let shown = TerminalText.escaped
        var lines = [
            "path:       \(shown(item.path))",
            "collection: \(shown(collectionText))",
            "kind:       \(shown(item.kind ?? "-"))",
            "item:       \(shown(TypedView.name(of: item)))",
            "label:      \(shown(item.label ?? "-"))",
            "created:    \(time(item.created))",
            "modified:   \(time(item.modified))",
            "locked:     \(collection.isLocked ? "yes" : "no")",
        ]
        if let fields = item.fields, !fields.isEmpty {
            lines.append("fields:")
            lines += TypedView.fieldLines(fields).map { "  " + $0 }
        }
        if let attributes = item.attributes {
            lines.append("attributes:" + (attributes.isEmpty ? " none" : ""))
            lines += attributes.sorted { $0.key < $1.key }.map { "  \(shown($0.key))=\(shown($0.value))" }
        } else {
            // ListItems sends paths only for a collection not unlocked since puffd started.
            lines.append("attributes: unknown until '\(shown(collection.id))' is unlocked")
        }
        return lines.joined(separator: "\n")
    }

    /// `show --json`: one object with the keys of a `list --json` entry.
    static func json(_ item: ItemSummary) -> String {
        JSONOutput.encode(item)
    }

    /// The candidates of an ambiguous reference, indented, one per line: path, label, created.
    static func candidates(_ items: [ItemSummary]) -> String {
        var table = TextTable("PATH", "LABEL", "CREATED")
        for item in items { table.append(item.path, item.label ?? "-", time(item.created)) }
        return table.rendered.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    private static func time(_ seconds: UInt64?) -> String {
        guard let seconds else { return "-" }
        return LocalTime.format(seconds, "%Y-%m-%d %H:%M")
    }
}
