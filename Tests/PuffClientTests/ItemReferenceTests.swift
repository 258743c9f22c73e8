// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// The three forms of ITEM, and the arguments that fit none of them.
struct ItemReferenceTests {
    @Test func aCollectionItemPathIsAPath() throws {
        let path = "/org/freedesktop/secrets/collection/login/3"
        #expect(try ItemReference(arguments: [path]) == .path(path))
    }

    @Test func collectionSlashNumberNamesAnItemByNumber() throws {
        #expect(try ItemReference(arguments: ["login/3"]) == .number(collection: "login", number: 3))
        #expect(try ItemReference(arguments: ["My_Coll/12"]) == .number(collection: "My_Coll", number: 12))
    }

    @Test func attributesSplitAtTheFirstEqualsSign() throws {
        let reference = try ItemReference(arguments: ["service=github", "url=https://x.example/?a=b"])
        #expect(reference == .attributes(["service": "github", "url": "https://x.example/?a=b"]))
        #expect(reference.text == "service=github url=https://x.example/?a=b")
    }

    @Test func anEmptyValueIsAnAttribute() throws {
        #expect(try ItemReference(arguments: ["note="]) == .attributes(["note": ""]))
    }

    @Test(arguments: [
        [],
        ["/org/freedesktop/secrets/collection/login"],
        ["/org/freedesktop/secrets/aliases/default/3"],
        ["/org/freedesktop/secrets/collection/login/x"],
        ["/org/freedesktop/secrets/collection/login/3", "user=a"],
        ["login"],
        ["login/"],
        ["/3"],
        ["login/3", "login/4"],
        ["service=a", "login/3"],
        ["=value"],
        ["user=a", "user=b"],
    ])
    func argumentsThatNameNoItemAreAUsageError(_ arguments: [String]) {
        let error = #expect(throws: ClientError.self) { try ItemReference(arguments: arguments) }
        guard case .usage? = error else {
            Issue.record("expected a usage error, got \(String(describing: error))")
            return
        }
        #expect((try? ItemReference(arguments: arguments)) == nil)
    }

    @Test func theSameAttributeTwiceWithTheSameValueIsAccepted() throws {
        #expect(try ItemReference(arguments: ["user=a", "user=a"]) == .attributes(["user": "a"]))
    }

    @Test func collectionPathsEncodeEveryByteButLettersAndDigits() {
        #expect(SecretPaths.item("My_Coll", number: 2) == "/org/freedesktop/secrets/collection/My_5fColl/2")
        #expect(SecretPaths.collection("ünï") == "/org/freedesktop/secrets/collection/_c3_bcn_c3_af")
    }
}
