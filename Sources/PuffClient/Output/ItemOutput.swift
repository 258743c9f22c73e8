// SPDX-License-Identifier: Apache-2.0
import Foundation

/// How `list` prints: a table for people, JSON for scripts. Secrets are never fetched, so they
/// cannot be printed.
///
/// JSON is an array of `{"collection", "path", "label", "attributes", "created", "modified",
/// "locked"}`; times are seconds since the Unix epoch, and keys the daemon did not send (a
/// collection never unlocked since start lists paths only) are left out.
enum ItemOutput {
    /// `list` for people: one row per item, times in local time, attributes as sorted `key=value`.
    static func text(_ items: [ItemSummary]) -> String {
        guard !items.isEmpty else { return "no items" }
        var table = TextTable("PATH", "LABEL", "CREATED", "MODIFIED", "ATTRIBUTES")
        for item in items {
            let attributes = (item.attributes ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            table.append(
                item.path, item.label ?? "-", time(item.created), time(item.modified),
                attributes.joined(separator: ", "))
        }
        return table.rendered
    }

    /// `list --json`.
    static func json(_ items: [ItemSummary]) -> String {
        JSONOutput.encode(items)
    }

    private static func time(_ seconds: UInt64?) -> String {
        guard let seconds else { return "-" }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
