// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import Testing

@testable import PuffClient

/// `ListItems` replies decoded and printed.
struct ItemOutputTests {
    private static let fullItem = Replies.dictionary([
        ("path", .objectPath(ObjectPath("/org/freedesktop/secrets/collection/login/7")!)),
        ("label", .string("GitHub token")),
        ("attributes", .stringDictionary(["service": "github", "user": "alice"])),
        ("created", .uint64(1_700_000_000)), ("modified", .uint64(1_700_000_100)), ("locked", .boolean(false)),
        ("kind", .string("generic")), ("fields", .stringDictionary(["service": "github", "account": "alice"])),
    ])
    private static let pathOnly = Replies.dictionary([
        ("path", .objectPath(ObjectPath("/org/freedesktop/secrets/collection/work/1")!))
    ])

    private func items(_ entries: [DBusValue], collection: String = "login") throws -> [ItemSummary] {
        try ItemSummary.list(reply: [.array(element: "a{sv}", entries)], collection: collection)
    }

    @Test func listItemsDecodesEveryField() throws {
        let decoded = try items([Self.fullItem])
        #expect(
            decoded == [
                ItemSummary(
                    collection: "login", path: "/org/freedesktop/secrets/collection/login/7", label: "GitHub token",
                    attributes: ["service": "github", "user": "alice"], created: 1_700_000_000,
                    modified: 1_700_000_100, isLocked: false, kind: "generic",
                    fields: ["service": "github", "account": "alice"])
            ])
    }

    @Test func listJSONCarriesPathLabelAttributesAndTimes() throws {
        let text = ItemOutput.json(try items([Self.fullItem]))
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(array.count == 1)
        #expect(
            Set(array[0].keys) == [
                "collection", "path", "label", "attributes", "created", "modified", "locked", "kind", "fields",
            ])
        #expect(array[0]["kind"] as? String == "generic")
        #expect(array[0]["fields"] as? [String: String] == ["service": "github", "account": "alice"])
        #expect(array[0]["path"] as? String == "/org/freedesktop/secrets/collection/login/7")
        #expect(array[0]["attributes"] as? [String: String] == ["service": "github", "user": "alice"])
        #expect(array[0]["created"] as? Int == 1_700_000_000)
        #expect(!text.contains("\\/"))
    }

    @Test func aPathOnlyItemLeavesTheOtherKeysOut() throws {
        let array = try #require(
            try JSONSerialization.jsonObject(
                with: Data(ItemOutput.json(try items([Self.pathOnly], collection: "work")).utf8))
                as? [[String: Any]])
        #expect(Set(array[0].keys) == ["collection", "path"])
        #expect(ItemOutput.text(try items([Self.pathOnly])).contains("/org/freedesktop/secrets/collection/work/1"))
    }

    @Test func theTableListsAttributesSorted() throws {
        let lines = ItemOutput.text(try items([Self.fullItem])).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].split(separator: " ") == ["PATH", "KIND", "ITEM", "CREATED", "MODIFIED", "ATTRIBUTES"])
        #expect(lines[1].hasSuffix("service=github, user=alice"))
        #expect(lines[1].contains(" generic ") && lines[1].contains("github / alice"))
    }

    @Test func anItemWithoutAPathIsAnUnexpectedReply() {
        #expect(throws: ClientError.unexpectedReply(member: "ListItems")) {
            try items([Replies.dictionary([("label", .string("x"))])])
        }
    }
}
