// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import Testing

@testable import PuffClient

/// `Status` replies decoded, printed as JSON and as a table, and used to pick a collection.
struct StatusOutputTests {
    private func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func statusDecodesEveryField() throws {
        let status = try VaultStatus(reply: Replies.twoCollections)
        #expect(status.isInitialized)
        #expect(status.store == "file")
        #expect(status.dataDirectory == "/home/me/.local/share/puff")
        #expect(status.version == "0.1.0")
        #expect(
            status.collections == [
                CollectionStatus(
                    id: "login", label: "Login", isLocked: false, itemCount: 3, isDefault: true,
                    policy: "alphanumeric", minimumLength: 8, policyText: "at least 8 characters"),
                CollectionStatus(
                    id: "work", label: "Work", isLocked: true, itemCount: 1, isPrivate: true, policy: "digits6",
                    minimumLength: 6, policyText: "6 digits"),
            ])
    }

    @Test func statusJSONHasTheVaultAndTheCollectionsUnderTheInterfaceKeys() throws {
        let object = try jsonObject(StatusOutput.json(try VaultStatus(reply: Replies.twoCollections)))
        #expect(Set(object.keys) == ["vault", "collections"])
        let vault = try #require(object["vault"] as? [String: Any])
        #expect(Set(vault.keys) == ["initialized", "store", "data_dir", "version", "prompter"])
        #expect(vault["initialized"] as? Bool == true)
        #expect(vault["prompter"] as? String == "agent")
        #expect(vault["data_dir"] as? String == "/home/me/.local/share/puff")
        let collections = try #require(object["collections"] as? [[String: Any]])
        #expect(collections.count == 2)
        #expect(
            Set(collections[0].keys)
                == [
                    "id", "label", "locked", "items", "private", "hidden", "default", "damaged", "store", "policy",
                    "min_length", "policy_text", "locked_search", "index_key", "search_waits_for_unlock",
                ])
        #expect(collections[0]["id"] as? String == "login")
        #expect(collections[1]["policy"] as? String == "digits6")
        #expect(collections[1]["min_length"] as? Int == 6)
        #expect(collections[1]["policy_text"] as? String == "6 digits")
        #expect(collections[0]["default"] as? Bool == true)
        #expect(collections[1]["locked"] as? Bool == true)
        #expect(collections[1]["items"] as? Int == 1)
    }

    @Test func collectionListJSONIsTheArrayAlone() throws {
        let status = try VaultStatus(reply: Replies.twoCollections)
        let array = try JSONSerialization.jsonObject(with: Data(StatusOutput.json(status.collections).utf8))
        #expect((array as? [[String: Any]])?.map { $0["id"] as? String } == ["login", "work"])
    }

    @Test func theTableShowsStateCountsAndFlags() throws {
        let text = StatusOutput.text(try VaultStatus(reply: Replies.twoCollections))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "puffd 0.1.0, file store in /home/me/.local/share/puff")
        // Cells are two or more spaces apart; a policy's text has single spaces.
        let cells = lines.dropFirst().map { $0.split(separator: #/ {2,}/#).map(String.init) }
        #expect(cells[0] == ["COLLECTION", "LABEL", "STATE", "ITEMS", "PASSCODE", "FLAGS"])
        #expect(cells[1] == ["login", "Login", "unlocked", "3", "at least 8 characters", "default"])
        #expect(cells[2] == ["work", "Work", "locked", "1", "6 digits", "private"])
        #expect(!lines.contains { $0.hasSuffix(" ") })
    }

    @Test func aTPMSealedIndexKeyShowsAsAlwaysTPMSealedAndSaysWhenSearchWaitsForTheUnlock() throws {
        func entry(_ id: String, key: String, waits: Bool) -> DBusValue {
            Replies.dictionary([
                ("id", .string(id)), ("label", .string(id)), ("locked", .boolean(true)), ("items", .uint32(2)),
                ("locked_search", .string("always")), ("index_key", .string(key)),
                ("search_waits_for_unlock", .boolean(waits)),
            ])
        }
        let status = try VaultStatus(
            reply: Replies.status([entry("mail", key: "tpm2", waits: true), entry("web", key: "clear", waits: false)]))
        let mail = status.collections[0]
        #expect(mail.indexKey == "tpm2" && mail.searchWaitsForUnlock)
        #expect(LockedSearchMode(of: mail) == .tpm2 && LockedSearchMode(of: status.collections[1]) == .always)
        let lines = StatusOutput.collectionsText(status.collections).split(separator: "\n").map(String.init)
        let cells = lines.map { $0.split(separator: #/ {2,}/#).map(String.init) }
        #expect(cells[1].last == "search:always(TPM-sealed)")
        #expect(cells[2] == ["web", "web", "locked", "2", "-"], "a clear key is the default: no flag")
        #expect(
            lines.last
                == "mail: the TPM did not unseal its index key at start (another TPM state, or changed PCRs): "
                + "search finds its items once it is unlocked")
        let object = try jsonObject(StatusOutput.json(status))
        let collections = try #require(object["collections"] as? [[String: Any]])
        #expect(collections[0]["locked_search"] as? String == "always")
        #expect(collections[0]["index_key"] as? String == "tpm2")
        #expect(collections[0]["search_waits_for_unlock"] as? Bool == true)
        #expect(collections[1]["search_waits_for_unlock"] as? Bool == false)
    }

    @Test func aDamagedCollectionSaysWhy() throws {
        let status = try VaultStatus(
            reply: Replies.status([Replies.collection("old", label: "Old", locked: true, items: 0, damaged: "bad MAC")])
        )
        let text = StatusOutput.collectionsText(status.collections)
        #expect(text.contains("damaged"))
        #expect(text.hasSuffix("old is damaged: bad MAC"))
    }

    @Test func aCollectionWithoutAPolicyShowsADashAndNoPolicyKeys() throws {
        let status = try VaultStatus(
            reply: Replies.status([Replies.collection("old", label: "Old", locked: true, items: 0, damaged: "bad MAC")])
        )
        #expect(status.collections[0].policy == nil)
        let cells = StatusOutput.collectionsText(status.collections).split(separator: "\n")[1]
            .split(separator: #/ {2,}/#)
        #expect(cells[4] == "-")
        let object = try jsonObject(StatusOutput.json(status))
        let collection = try #require((object["collections"] as? [[String: Any]])?.first)
        #expect(collection["policy"] == nil)
        #expect(collection["min_length"] == nil)
    }

    @Test func anUninitializedVaultSaysToRunInit() throws {
        let status = try VaultStatus(reply: Replies.status(initialized: false, []))
        #expect(StatusOutput.text(status).hasSuffix("no passcode set: run `puffctl init`"))
    }

    @Test func aFieldOfTheWrongTypeIsAnUnexpectedReply() {
        let reply = Replies.status([Replies.dictionary([("id", .string("x")), ("locked", .string("yes"))])])
        #expect(throws: ClientError.unexpectedReply(member: "Status")) { try VaultStatus(reply: reply) }
        #expect(throws: ClientError.unexpectedReply(member: "Status")) { try VaultStatus(reply: [.string("x")]) }
    }

    @Test func withNoNameTheDefaultCollectionIsTheTarget() throws {
        let status = try VaultStatus(reply: Replies.twoCollections)
        #expect(try status.target(nil).id == "login")
        #expect(try status.target("work").id == "work")
    }

    @Test func aNameNotListedIsNoSuchCollection() throws {
        let status = try VaultStatus(reply: Replies.twoCollections)
        #expect(throws: ClientError.noSuchCollection("typo")) { try status.target("typo") }
    }

    @Test func withNoDefaultAndNoNameThereIsNoTarget() throws {
        let status = try VaultStatus(
            reply: Replies.status([Replies.collection("a", label: "A", locked: true, items: 0)]))
        #expect(throws: ClientError.noDefaultCollection) { try status.target(nil) }
    }

    @Test func beforeInitNothingIsATarget() throws {
        let status = try VaultStatus(reply: Replies.status(initialized: false, []))
        #expect(throws: ClientError.notInitialized) { try status.target(nil) }
        #expect(throws: ClientError.notInitialized) { try status.target("login") }
    }
}
