// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffProtocol
import Testing

@testable import PuffClient

/// A fleet collection in `Status` (docs/fleet.md, "Working with it"): its store and whether that
/// store answered, decoded, printed below the table and kept in `--json`.
struct FleetStatusOutputTests {
    typealias Key = ControlContract.Key
    static let utc = LocalTime.Zone.offset(0)
    static let unreachable = "OpenBao at http://127.0.0.1:8200 is unreachable: Could not connect to server"

    /// A fleet collection's entry: shared as `team`, tried at 1_700_000_005; `online` nil: not yet.
    static func entry(_ id: String, online: Bool?, reached: UInt64, reason: String = "") -> DBusValue {
        var pairs: [(String, DBusValue)] = [
            (Key.id, .string(id)), (Key.label, .string(id)), (Key.locked, .boolean(false)), (Key.items, .uint32(1)),
            (Key.store, .string("openbao")), (Key.sharedName, .string("team")),
            (Key.checkedAt, .uint64(online == nil ? 0 : 1_700_000_005)), (Key.reachedAt, .uint64(reached)),
            (Key.offlineReason, .string(reason)),
        ]
        if let online { pairs.append((Key.online, .boolean(online))) }
        return Replies.dictionary(pairs)
    }

    static let status = Replies.status([
        Replies.collection("login", label: "Login", locked: false, items: 3, isDefault: true),
        entry("up", online: true, reached: 1_700_000_000),
        entry("down", online: false, reached: 1_700_000_000, reason: unreachable),
        entry("new", online: nil, reached: 0),
        entry("lost", online: false, reached: 0, reason: "a bad \u{1b}[2J answer"),
    ])

    @Test func eachFleetCollectionGetsALineWithItsStoreAndWhetherItAnswered() throws {
        let status = try VaultStatus(reply: Self.status)
        let lines = StatusOutput.collectionsText(status.collections, zone: Self.utc).split(separator: "\n")
            .map(String.init)
        #expect(
            Array(lines.suffix(4)) == [
                "up: store openbao as team, online (reached 2023-11-14 22:13:20)",
                "down: store openbao as team, offline: \(Self.unreachable) (reached 2023-11-14 22:13:20)",
                "new: store openbao as team, not tried yet",
                // What OpenBao (or anyone on the way) answered cannot move the cursor.
                "lost: store openbao as team, offline: a bad \\u001b[2J answer (not reached since puffd started)",
            ])
        #expect(!lines.contains { $0.hasPrefix("login:") }, "a collection of this machine alone gets no line")
        let cells = lines[2].split(separator: #/ {2,}/#).map(String.init)
        #expect(cells.prefix(4) == ["up", "up", "unlocked", "1"])
    }

    @Test func theFleetFieldsAreDecodedAndOnlyForFleetCollections() throws {
        let collections = try VaultStatus(reply: Self.status).collections
        #expect(collections[0].shared == nil && collections[0].store == "file")
        #expect(collections[1].store == "openbao")
        #expect(
            collections[1].shared
                == SharedStatus(
                    name: "team", online: true, checkedAt: 1_700_000_005, reachedAt: 1_700_000_000, reason: ""))
        #expect(collections[2].shared?.online == false && collections[2].shared?.reason == Self.unreachable)
        #expect(
            collections[3].shared == SharedStatus(name: "team", online: nil, checkedAt: 0, reachedAt: 0, reason: ""))
    }

    @Test func theJSONCarriesTheFleetFieldsUnderTheInterfaceKeys() throws {
        let json = StatusOutput.json(try VaultStatus(reply: Self.status))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let collections = try #require(object["collections"] as? [[String: Any]])
        #expect(Set(collections[0].keys).isDisjoint(with: Key.sharedStatus))
        #expect(Set(Key.sharedStatus).isSubset(of: collections[1].keys))
        #expect(collections[1]["store"] as? String == "openbao")
        #expect(collections[1]["shared_name"] as? String == "team")
        #expect(collections[1]["online"] as? Bool == true)
        #expect(collections[1]["reached_at"] as? Int == 1_700_000_000)
        #expect(collections[1]["checked_at"] as? Int == 1_700_000_005)
        #expect(collections[2]["online"] as? Bool == false)
        #expect(collections[2]["offline_reason"] as? String == Self.unreachable)
        #expect(collections[3]["online"] == nil, "not tried yet: no answer either way")
    }
}
