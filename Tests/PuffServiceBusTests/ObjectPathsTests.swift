// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import Testing

@testable import PuffServiceBus

@Suite struct ObjectPathsTests {
    /// gnome-keyring's observed identifiers and path elements (secret-service.md §1.3).
    @Test(arguments: [
        ("My_Coll", "My_5fColl"), ("a_b_c", "a_5fb_5fc"), ("ünï", "_c3_bcn_c3_af"), ("Login", "Login"),
        ("unnamed", "unnamed"), ("Default_keyring", "Default_5fkeyring"),
    ])
    func identifiersEncodeAsGnomeKeyringDoes(_ identifier: String, _ element: String) {
        #expect(ObjectPaths.encode(identifier) == element)
        #expect(ObjectPaths.decode(element) == identifier)
    }

    @Test(arguments: ["a", "x y", "a/b", "_", "__5f", "ü:✓", "1_2"])
    func everyIdentifierMakesAValidPathAndComesBack(_ identifier: String) throws {
        let path = ObjectPaths.path(of: CollectionID(identifier))
        #expect(ObjectPath(path.rawValue) != nil)
        #expect(ObjectPaths.parse(path) == .collection(CollectionID(identifier)))
    }

    @Test func pathsParseIntoWhatTheyName() throws {
        let cases: [(String, ObjectPaths.Target?)] = [
            ("/org/freedesktop/secrets", .service),
            ("/org/freedesktop/secrets/collection/login", .collection(.login)),
            ("/org/freedesktop/secrets/collection/login/7", .item(ItemID(collection: .login, number: 7))),
            ("/org/freedesktop/secrets/aliases/default", .alias("default")),
            ("/org/freedesktop/secrets/aliases/default/3", .aliasItem(alias: "default", number: 3)),
            ("/org/freedesktop/secrets/session/s4", .session(SessionID("s4"))),
            ("/org/freedesktop/secrets/prompt/p2", .prompt(PromptID("p2"))),
            ("/org/freedesktop/secrets/collection", .node),
            ("/org/freedesktop/secrets/collection/login/x", nil),
            ("/org/freedesktop/secrets/collection/login/1/2", nil),
            ("/org/freedesktop/Secrets", nil),
            ("/", nil),
        ]
        for (text, expected) in cases {
            #expect(ObjectPaths.parse(try #require(ObjectPath(text))) == expected, "\(text)")
        }
    }
}
