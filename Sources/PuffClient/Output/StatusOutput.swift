// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials
import PuffText

/// How `status` and `collection list` print: a table for people, JSON for scripts.
///
/// JSON keys are the `Status` dictionary keys of `dbus/io.puff.Control1.xml`, so the two stay one
/// vocabulary: `{"vault": {"initialized", "store", "data_dir", "version"}, "collections": [...]}`.
enum StatusOutput {
    /// `status` for people: one line about the vault, then the collections; times in `zone`.
    static func text(_ status: VaultStatus, zone: LocalTime.Zone = .system) -> String {
        guard status.isInitialized else {
            return "puffd \(status.version): no passcode set: run `puffctl init`"
        }
        let store =
            status.dataDirectory.isEmpty ? "\(status.store) store" : "\(status.store) store in \(status.dataDirectory)"
        let problems = status.problems.map { TerminalText.escaped("vault problem: \($0)") }
        return (["puffd \(status.version), \(store)", collectionsText(status.collections, zone: zone)] + problems)
            .joined(separator: "\n")
    }

    /// The collections table, followed by one line per damaged collection saying why, and one
    /// per fleet collection saying whether its shared store answers.
    static func collectionsText(_ collections: [CollectionStatus], zone: LocalTime.Zone = .system) -> String {
        guard !collections.isEmpty else { return "no collections" }
        var table = TextTable("COLLECTION", "LABEL", "STATE", "ITEMS", "PASSCODE", "FLAGS")
        for collection in collections {
            let state = !collection.damage.isEmpty ? "damaged" : collection.isLocked ? "locked" : "unlocked"
            let flags = [
                collection.isDefault ? "default" : nil, collection.isPrivate ? "private" : nil,
                collection.isHidden ? "hidden" : nil,
                // Private implies never; `always` is the default and says nothing, unless its
                // key is sealed by the TPM.
                collection.isPrivate
                    || ["", "always"].contains(collection.lockedSearch)
                        && collection.indexKey != "tpm2"
                    ? nil : "search:\(LockedSearchMode(of: collection)?.flag ?? collection.lockedSearch)",
            ]
            table.append(
                collection.id, collection.label, state, String(collection.itemCount), collection.policyText ?? "-",
                flags.compactMap(\.self).joined(separator: ","))
        }
        let damage = collections.filter { !$0.damage.isEmpty }.map {
            TerminalText.escaped("\($0.id) is damaged: \($0.damage)")
        }
        let waiting = collections.filter(\.searchWaitsForUnlock).map {
            TerminalText.escaped(
                "\($0.id): the TPM did not unseal its index key at start (another TPM state, or changed PCRs): "
                    + "search finds its items once it is unlocked")
        }
        let fleet = collections.compactMap { collection in
            collection.shared.map { TerminalText.escaped(sharedText(collection, $0, zone: zone)) }
        }
        return ([table.rendered] + damage + waiting + fleet).joined(separator: "\n")
    }

    /// `team: store openbao as team, online (reached 2026-11-28 05:00:01)`, or offline with the
    /// reason and when the store last answered.
    static func sharedText(_ collection: CollectionStatus, _ shared: SharedStatus, zone: LocalTime.Zone) -> String {
        let reached =
            shared.reachedAt == 0
            ? "not reached since puffd started" : "reached \(AuditTime.shown(shared.reachedAt, zone: zone))"
        let state =
            switch shared.online {
            case true?: "online (\(reached))"
            case false?: "offline: \(shared.reason) (\(reached))"
            case nil: "not tried yet"
            }
        return "\(collection.id): store \(collection.store) as \(shared.name), \(state)"
    }

    /// `status --json`.
    static func json(_ status: VaultStatus) -> String {
        JSONOutput.encode(status)
    }

    /// `collection list --json`: the array of collections alone.
    static func json(_ collections: [CollectionStatus]) -> String {
        JSONOutput.encode(collections)
    }
}

/// JSON text with sorted keys, so output is stable from run to run.
enum JSONOutput {
    /// Pretty-printed JSON of `value`, slashes unescaped (paths stay readable).
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Only strings, numbers and flags are encoded, which cannot fail.
        let data = try! encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}
