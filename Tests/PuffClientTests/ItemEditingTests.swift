// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Testing

@testable import PuffClient

/// `add`, `edit`, `rm` and `search` as parsed, and what `search` matches.
struct ItemEditingTests {
    private func parse<C: ParsableCommand>(_ arguments: [String], as type: C.Type) throws -> C {
        try #require(try Puffctl.parseAsRoot(arguments) as? C)
    }

    @Test func addTakesALabelAttributesAndACollection() throws {
        let add = try parse(["add", "Mail", "service=imap", "user=a=b", "--collection", "work"], as: AddItem.self)
        #expect(add.label == "Mail")
        #expect(try ItemReference.attributes(add.attributes) == ["service": "imap", "user": "a=b"])
        #expect(add.collection == "work")
        #expect(!add.secret.isGiven)
    }

    @Test func addGeneratesWithALengthAndCharsetOnlyWhenAsked() throws {
        let add = try parse(["add", "X", "--generate", "--length", "40", "--charset", "hex"], as: AddItem.self)
        #expect(add.secret.generate && add.secret.length == 40)
        #expect(add.secret.generatedDescription == "40 characters of hex (160 bits)")
        for bad in [
            ["add", "X", "--stdin", "--generate"], ["add", "X", "--length", "5"], ["add", "X", "--charset", "hex"],
            ["add", "X", "--generate", "--length", "0"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try Puffctl.parseAsRoot(bad) }
        }
    }

    @Test func attributesWithoutAnEqualsSignAreAUsageError() {
        #expect(throws: ClientError.usage("'user' is not an attribute: give every one as attr=value")) {
            try ItemReference.attributes(["service=x", "user"])
        }
    }

    @Test func editNeedsSomethingToChange() throws {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["edit", "login/1"]) }
        let edit = try parse(
            ["edit", "service=x", "--set", "user=bob", "--unset", "old", "--label", "New"], as: EditItem.self)
        #expect(edit.item.item == ["service=x"])
        #expect(edit.set == ["user=bob"] && edit.unset == ["old"] && edit.label == "New")
        #expect(try parse(["edit", "login/1", "--stdin"], as: EditItem.self).secret.readsStandardInput)
        #expect(try parse(["edit", "login/1", "--secret"], as: EditItem.self).changesSecret)
    }

    @Test func rmAsksUnlessForced() throws {
        #expect(!(try parse(["rm", "login/1"], as: RemoveItem.self).force))
        #expect(try parse(["rm", "login/1", "--force"], as: RemoveItem.self).force)
    }

    @Test func searchMatchesLabelsAndAttributeValuesIgnoringCase() {
        let item = ItemSummary(
            collection: "login", path: "/org/freedesktop/secrets/collection/login/1", label: "Café GitHub",
            attributes: ["server": "mail.Example.org", "user": "ÉLISE"])
        #expect(ItemSearch.matches(item, "github"))
        #expect(ItemSearch.matches(item, "CAFÉ"))
        #expect(ItemSearch.matches(item, "example.ORG"))
        #expect(ItemSearch.matches(item, "élise"))
        #expect(!ItemSearch.matches(item, "server"), "attribute names are not searched")
        #expect(!ItemSearch.matches(item, "gitlab"))
        // A locked collection's items come with no label or attributes: nothing to match.
        #expect(!ItemSearch.matches(ItemSummary(collection: "c", path: "/p"), "p"))
    }

    @Test func shortNamesAreCollectionSlashNumber() {
        #expect(SecretPaths.shortName(of: SecretPaths.item("my work", number: 7), collection: "my work") == "my work/7")
        #expect(SecretPaths.shortName(of: "/elsewhere", collection: "login") == "/elsewhere")
    }
}
