// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PuffFormats
import PuffText

/// What `puffctl import` prints: a line per item and the totals, or with `--json` one JSON
/// object per line. Labels are escaped for the terminal; no secret is ever printed.
enum ImportOutput {
    /// One `--json` line about an item.
    struct ItemLine: Encodable {
        /// The item's place in the batch sent to puffd; nil for what the source's reader passed over.
        var index: Int?
        var outcome: String
        /// nil where the source gives what was skipped no name (a damaged item).
        var label: String?
        var reason: String?
        var item: String?
        var leftBehind: [String]?
        /// The source collection of an `import --bus` item.
        var from: String?

        enum CodingKeys: String, CodingKey {
            case index, outcome, label, reason, item, from
            case leftBehind = "left_behind"
        }
    }

    /// The last `--json` line.
    struct Totals: Encodable {
        var collection: String
        var dryRun: Bool
        var added: Int
        var replaced: Int
        var unchanged: Int
        var skipped: Int

        enum CodingKeys: String, CodingKey {
            case collection, added, replaced, unchanged, skipped
            case dryRun = "dry_run"
        }
    }

    /// Prints puffd's `outcomes` for `items`, after what the source's reader `skipped`;
    /// `origins` names each item's source collection (`import --bus`).
    static func print(
        _ outcomes: [ImportOutcomeLine], items: [PortableItem], skipped: [PortableSkip] = [], json: Bool,
        dryRun: Bool, into: String, origins: [String] = []
    ) {
        let count = { (kind: String) in outcomes.count { $0.outcome == kind } }
        let totals = Totals(
            collection: into, dryRun: dryRun, added: count("added"), replaced: count("replaced"),
            unchanged: count("unchanged"), skipped: count("skipped") + skipped.count)
        for skip in skipped {
            if json {
                Console.out(line(ItemLine(outcome: "skipped", label: skip.label, reason: skip.reason)))
            } else {
                let name = skip.label.map { "'\(TerminalText.escaped($0))': " } ?? ""
                Console.out("skipped   \(name)\(TerminalText.escaped(skip.reason))")
            }
        }
        for outcome in outcomes {
            let leftBehind = outcome.index < items.count ? items[outcome.index].leftBehind : []
            let from = outcome.index < origins.count ? origins[outcome.index] : nil
            if json {
                Console.out(
                    line(
                        ItemLine(
                            index: outcome.index, outcome: outcome.outcome, label: outcome.label,
                            reason: outcome.reason.isEmpty ? nil : outcome.reason,
                            item: outcome.path.isEmpty ? nil : outcome.path,
                            leftBehind: leftBehind.isEmpty ? nil : leftBehind, from: from)))
                continue
            }
            var text =
                "\(padded(outcome.outcome, to: 9)) "
                + "'\(TerminalText.escaped(outcome.label))'"
            if let from { text += " from '\(TerminalText.escaped(from))'" }
            if !outcome.reason.isEmpty { text += ": \(TerminalText.escaped(outcome.reason))" }
            if !leftBehind.isEmpty {
                text += " (not imported: \(leftBehind.map(TerminalText.escaped).joined(separator: ", ")))"
            }
            Console.out(text)
        }
        if json {
            Console.out(line(totals))
        } else {
            let verb = dryRun ? "would be" : "were"
            Console.error(
                "\(totals.added) added, \(totals.replaced) replaced, \(totals.unchanged) unchanged, "
                    + "\(totals.skipped) skipped (items that \(verb) imported into '\(into)')"
                    + (dryRun ? "; nothing was changed (--dry-run)" : ""))
        }
    }

    /// `text` cut or filled with spaces to `width` characters, so that labels line up.
    static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }

    /// `value` as one line of JSON, keys sorted.
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, numbers and flags are encoded, which cannot fail.
        let data = try! encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}
