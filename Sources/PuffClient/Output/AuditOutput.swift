// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PuffText

/// How `audit` prints: a table for people, JSON for scripts. Entries never hold a secret.
///
/// JSON is `{"entries": [{"collection", "time", "action", "result", "item", "label",
/// "executable", "client", "pid", "app", "sequence"}], "unreadable": {collection: reason},
/// "rotated": {collection: count}}`; times are seconds since the Unix epoch; `executable` and
/// `pid` are left out when puffd could not tell them, `app` for a caller that ran in no Flatpak
/// sandbox; `rotated` counts the entries each log lost to rotation.
enum AuditOutput {
    private struct Document: Encodable {
        var entries: [AuditSummary]
        var unreadable: [String: String]
        var rotated: [String: UInt64]
    }

    /// `audit` for people: one row per entry, oldest first, local time.
    static func text(_ reply: AuditLogReply) -> String {
        guard !reply.entries.isEmpty else { return "no entries" }
        var table = TextTable("TIME", "COLLECTION", "ITEM", "CALLER", "ACTION", "RESULT")
        for entry in reply.entries.sorted(by: { $0.time < $1.time }) {
            table.append(
                AuditTime.shown(entry.time), entry.collection, entry.label, entry.caller, entry.action, entry.result)
        }
        return table.rendered
    }

    /// One line per collection whose log was not read whole, for standard error.
    static func notes(_ reply: AuditLogReply) -> [String] {
        reply.unreadable.sorted { $0.key < $1.key }.map { collection, reason in
            let (collection, reason) = (TerminalText.escaped(collection), TerminalText.escaped(reason))
            return reason == "locked"
                ? "puffctl: '\(collection)' is locked, so its audit log cannot be read: run `puffctl unlock \(collection)`"
                : "puffctl: the audit log of '\(collection)' is not whole: \(reason)"
        }
            + reply.rotated.sorted { $0.key < $1.key }.map { collection, count in
                "puffctl: the audit log of '\(collection)' no longer holds its \(count) oldest entries "
                    + "(rotated out past [audit] max_bytes in puffd.toml, or removed: see any log-removed entry)"
            }
    }

    /// `audit --json`.
    static func json(_ reply: AuditLogReply) -> String {
        JSONOutput.encode(Document(entries: reply.entries, unreadable: reply.unreadable, rotated: reply.rotated))
    }
}
