// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import PuffClient

/// How `list` and `show` name items from the kind and typed fields puffd sends.
struct TypedViewTests {
    func name(_ kind: String?, _ fields: [String: String]?, label: String? = "The label") -> String {
        TypedView.name(of: ItemSummary(collection: "login", path: "/p", label: label, kind: kind, fields: fields))
    }

    @Test func anInternetPasswordReadsAsAURLLeavingOutWhatIsAbsent() {
        let all = ["protocol": "https", "server": "github.com", "user": "alice", "port": "8443", "path": "o/r.git"]
        #expect(name("internet", all) == "https://alice@github.com:8443/o/r.git")
        #expect(name("internet", ["protocol": "https", "server": "h", "path": "/v1/"]) == "https://h/v1/")
        #expect(name("internet", ["server": "h", "user": "bob"]) == "bob@h")
        #expect(name("internet", ["server": "h", "port": "22"]) == "h:22")
        #expect(name("internet", ["protocol": "https", "user": "bob"]) == "The label")
        #expect(name("internet", nil) == "The label")
    }

    @Test func anIPv6HostIsBracketedOnceAndTheUsersSeparatorsArePercentEncoded() {
        #expect(
            name("internet", ["protocol": "ssh", "server": "2001:db8::1", "port": "22"]) == "ssh://[2001:db8::1]:22")
        #expect(name("internet", ["protocol": "http", "server": "[::1]"]) == "http://[::1]")
        #expect(name("internet", ["server": "h", "user": "a@b:c/d%e"]) == "a%40b%3Ac%2Fd%25e@h")
        #expect(name("internet", ["server": "bücher.example", "user": "jürgen"]) == "jürgen@bücher.example")
    }

    @Test func aGenericPasswordReadsAsServiceSlashAccount() {
        #expect(name("generic", ["service": "svc", "account": "u"]) == "svc / u")
        #expect(name("generic", ["service": "svc"]) == "svc")
        #expect(name("generic", ["account": "u"]) == "u")
        #expect(name("generic", [:]) == "The label")
    }

    @Test func notesOtherItemsAndItemsOfUnknownKindReadAsTheirLabel() {
        #expect(name("note", [:]) == "The label")
        #expect(name("other", ["server": "h"]) == "The label")
        #expect(name(nil, nil) == "The label")
        #expect(name(nil, nil, label: nil) == "-")
    }

    @Test func showListsTheKindTheNameAndTheTypedFieldsInAFixedOrder() {
        #expect(
            TypedView.fieldLines(["user": "u", "server": "h", "protocol": "p", "zeta": "z", "alpha": "a"])
                == ["protocol=p", "server=h", "user=u", "alpha=a", "zeta=z"])
        let item = ItemSummary(
            collection: "login", path: "/p", label: "L", attributes: ["server": "h"], kind: "internet",
            fields: ["server": "h", "domain": "CORP"])
        let text = ItemOutput.detail(
            ResolvedItem(
                item: item, collection: CollectionStatus(id: "login", label: "Login", isLocked: false, itemCount: 1)))
        #expect(text.contains("kind:       internet\nitem:       h\nlabel:      L"))
        #expect(text.contains("fields:\n  server=h\n  domain=CORP\nattributes:\n  server=h"))
    }

    @Test func jsonGivesThePortAsANumberAndLeavesOutAbsentFields() throws {
        let item = ItemSummary(
            collection: "login", path: "/p", kind: "internet", fields: ["server": "h", "port": "8443", "user": "u"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(ItemOutput.json(item).utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "internet")
        let fields = try #require(object["fields"] as? [String: Any])
        #expect(Set(fields.keys) == ["server", "port", "user"])
        #expect(fields["port"] as? Int == 8443)
    }
}
