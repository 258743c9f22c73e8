// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService
import PuffTesting
import Testing

@testable import PuffServiceBus

/// Every method and property of the Secret Service's interfaces once, through ``SecretRouter``
/// with no bus (design core-reshaped §8): calls built as bytes, replies read back as bytes.
struct SecretRouterTests {
    typealias H = SecretRouterHarness
    typealias Names = SecretServiceContract

    @Test func openSessionAnswersAPlainSessionAndRefusesAnUnknownAlgorithm() async throws {
        let harness = try await H()
        let reply = try await harness.ok(
            H.service, Names.Interface.service, "OpenSession", [.string("plain"), .variant(.string(""))])
        #expect(reply.first?.variantContents?.string == "")
        #expect(reply.last?.objectPath?.rawValue.hasPrefix(H.service + "/session/") == true)
        let refused = try await harness.error(
            H.service, Names.Interface.service, "OpenSession", [.string("rot13"), .variant(.string(""))])
        #expect(refused == "org.freedesktop.DBus.Error.NotSupported")
    }

    @Test func aCallWithTheWrongSignatureIsRefusedBeforeAnyHandler() async throws {
        let harness = try await H()
        let refused = try await harness.error(H.service, Names.Interface.service, "OpenSession", [.string("plain")])
        #expect(refused == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func createCollectionMakesOneAtOnceInAnEphemeralVaultAndRefusesALabelOfAnotherType() async throws {
        let harness = try await H()
        let label = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(Names.PropertyKey.collectionLabel), .variant(.string("Work")))])
        let reply = try await harness.ok(H.service, Names.Interface.service, "CreateCollection", [label, .string("")])
        let path = try #require(reply.first?.objectPath?.rawValue)
        #expect(path.hasPrefix(Names.collectionPathPrefix))
        #expect(reply.last?.objectPath == .root)
        #expect(try await harness.property(path, Names.Interface.collection, "Label")?.string == "Work")
        let wrong = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(Names.PropertyKey.collectionLabel), .variant(.uint32(7)))])
        let refused = try await harness.error(
            H.service, Names.Interface.service, "CreateCollection", [wrong, .string("")])
        #expect(refused == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func searchItemsFindsAnUnlockedItemByItsAttributes() async throws {
        let harness = try await H()
        let item = try await harness.createItem()
        let reply = try await harness.ok(
            H.service, Names.Interface.service, "SearchItems", [.stringDictionary(["service": "mail"])])
        #expect(reply.paths(at: 0) == [item])
        #expect(reply.paths(at: 1) == [])
        let inCollection = try await harness.ok(
            H.login, Names.Interface.collection, "SearchItems", [.stringDictionary(["service": "mail"])])
        #expect(inCollection.paths(at: 0) == [item])
    }

    @Test func lockAndUnlockEchoThePathsAsTheCallerSpelledThemAndDropUnknownOnes() async throws {
        let harness = try await H(script: [.reply(.confirmed)])
        let bogus = Names.collectionPathPrefix + "nothing"
        let locked = try await harness.ok(
            H.service, Names.Interface.service, "Lock",
            [.objectPaths([ObjectPath(H.defaultAlias)!, ObjectPath(bogus)!])])
        #expect(locked.paths(at: 0) == [H.defaultAlias])
        #expect(locked.last?.objectPath == .root)
        #expect(try await harness.property(H.login, Names.Interface.collection, "Locked")?.bool == true)

        let unlocked = try await harness.ok(
            H.service, Names.Interface.service, "Unlock",
            [.objectPaths([ObjectPath(H.defaultAlias)!, ObjectPath(bogus)!, ObjectPath(H.login)!])])
        #expect(unlocked.paths(at: 0) == [])
        let prompt = try #require(unlocked.last?.objectPath)
        #expect(prompt != .root)
        #expect(harness.spellings.count == 1)
        #expect(try await harness.ok(prompt.rawValue, Names.Interface.prompt, "Prompt", [.string("")]).isEmpty)
        let done = try #require(
            await harness.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } })
        // `Completed` carries the caller's own spellings, the alias path first, as asked.
        let completed = SignalEmitter.messages(for: done, spellings: harness.spellings)
        #expect(completed.first?.body.last?.variantContents?.objectPaths?.map(\.rawValue) == [H.defaultAlias, H.login])
        #expect(harness.spellings.count == 0)
        #expect(try await harness.property(H.login, Names.Interface.collection, "Locked")?.bool == false)
    }

    @Test func promptDismissCompletesTheUnlockDismissed() async throws {
        let harness = try await H(script: [.hold])
        _ = try await harness.ok(H.service, Names.Interface.service, "Lock", [.objectPaths([ObjectPath(H.login)!])])
        let unlocked = try await harness.ok(
            H.service, Names.Interface.service, "Unlock", [.objectPaths([ObjectPath(H.login)!])])
        let prompt = try #require(unlocked.last?.objectPath)
        #expect(try await harness.ok(prompt.rawValue, Names.Interface.prompt, "Dismiss").isEmpty)
        let done = await harness.recorder.waitFor { if case .promptCompleted = $0 { true } else { false } }
        let id = PromptID(String(prompt.rawValue.split(separator: "/").last ?? ""))
        #expect(done == .promptCompleted(id, owner: ClientID(H.alice), dismissed: true, result: .objects([])))
        let again = try await harness.error(prompt.rawValue, Names.Interface.prompt, "Dismiss")
        #expect(again == Names.ErrorName.noSuchObject)
    }

    @Test func getSecretsKeysEachSecretByThePathAsRequested() async throws {
        let harness = try await H()
        let item = try await harness.createItem(secret: "pw")
        let session = try await harness.plainSession()
        let throughAlias = H.defaultAlias + "/" + (item.split(separator: "/").last.map(String.init) ?? "")
        let reply = try await harness.ok(
            H.service, Names.Interface.service, "GetSecrets",
            [.objectPaths([ObjectPath(throughAlias)!]), .objectPath(ObjectPath(session)!)])
        guard case .dictionary(_, _, let entries)? = reply.first else {
            Issue.record("GetSecrets did not answer a{o(oayays)}")
            return
        }
        #expect(entries.map { $0.key.objectPath?.rawValue } == [throughAlias])
        #expect(entries.first?.value.fields?[2].bytes == Array("pw".utf8))
    }

    @Test func readAliasAndSetAliasNameCollectionsByPath() async throws {
        let harness = try await H()
        #expect(
            try await harness.ok(H.service, Names.Interface.service, "ReadAlias", [.string("default")]).first?
                .objectPath
                == ObjectPath(H.login)!)
        #expect(
            try await harness.ok(
                H.service, Names.Interface.service, "SetAlias", [.string("mine"), .objectPath(ObjectPath(H.login)!)]
            )
            .isEmpty)
        #expect(
            try await harness.ok(H.service, Names.Interface.service, "ReadAlias", [.string("mine")]).first?.objectPath
                == ObjectPath(H.login)!)
        #expect(
            try await harness.ok(H.service, Names.Interface.service, "ReadAlias", [.string("none")]).first?.objectPath
                == .root)
        let refused = try await harness.error(
            H.service, Names.Interface.service, "SetAlias", [.string("x"), .objectPath(ObjectPath(H.service)!)])
        #expect(refused == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func theServicesCollectionsPropertyListsEveryCollection() async throws {
        let harness = try await H()
        let collections = try await harness.property(H.service, Names.Interface.service, "Collections")
        #expect(collections?.objectPaths?.map(\.rawValue).contains(H.login) == true)
    }

    @Test func changeWithPromptRefusesACollectionWithoutAPasscode() async throws {
        let harness = try await H()
        let refused = try await harness.error(
            H.service, Names.Interface.gnomeKeyringInternal, "ChangeWithPrompt", [.objectPath(ObjectPath(H.login)!)])
        #expect(refused == Names.ErrorName.noSuchObject)
    }

    @Test func theCollectionsPropertiesReadAndItsLabelIsSet() async throws {
        let harness = try await H()
        let item = try await harness.createItem()
        let collection = Names.Interface.collection
        #expect(try await harness.property(H.login, collection, "Items")?.objectPaths?.map(\.rawValue) == [item])
        #expect(try await harness.property(H.login, collection, "Locked")?.bool == false)
        #expect(try await harness.property(H.login, collection, "Created")?.signature.rawValue == "t")
        #expect(try await harness.property(H.login, collection, "Modified")?.signature.rawValue == "t")
        #expect(try await harness.set(H.login, collection, "Label", .string("Mine")) == nil)
        #expect(try await harness.property(H.login, collection, "Label")?.string == "Mine")
        #expect(
            try await harness.set(H.login, collection, "Label", .uint32(1)) == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func createItemRefusesAttributesOfAnotherTypeAndALockedCollection() async throws {
        let harness = try await H()
        let session = try await harness.plainSession()
        let bad = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(Names.PropertyKey.itemAttributes), .variant(.string("x")))])
        let secret = H.secret("pw", session: session)
        #expect(
            try await harness.error(H.login, Names.Interface.collection, "CreateItem", [bad, secret, .boolean(false)])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        _ = try await harness.ok(H.service, Names.Interface.service, "Lock", [.objectPaths([ObjectPath(H.login)!])])
        let good = DBusValue.dictionary(key: "s", value: "v", [])
        #expect(
            try await harness.error(H.login, Names.Interface.collection, "CreateItem", [good, secret, .boolean(false)])
                == Names.ErrorName.isLocked)
    }

    @Test func anItemsSecretIsReadAndReplacedAndAClosedSessionIsRefused() async throws {
        let harness = try await H()
        let item = try await harness.createItem(secret: "one")
        let session = try await harness.plainSession()
        let first = try await harness.ok(item, Names.Interface.item, "GetSecret", [.objectPath(ObjectPath(session)!)])
        #expect(first.first?.fields?[2].bytes == Array("one".utf8))
        #expect(
            try await harness.ok(item, Names.Interface.item, "SetSecret", [H.secret("two", session: session)]).isEmpty)
        let second = try await harness.ok(item, Names.Interface.item, "GetSecret", [.objectPath(ObjectPath(session)!)])
        #expect(second.first?.fields?[2].bytes == Array("two".utf8))
        #expect(try await harness.ok(session, Names.Interface.session, "Close").isEmpty)
        #expect(
            try await harness.error(item, Names.Interface.item, "GetSecret", [.objectPath(ObjectPath(session)!)])
                == Names.ErrorName.noSession)
    }

    @Test func anItemsPropertiesReadAndTheWritableOnesAreSet() async throws {
        let harness = try await H()
        let item = try await harness.createItem(label: "mail", attributes: ["service": "mail"])
        let interface = Names.Interface.item
        #expect(try await harness.property(item, interface, "Locked")?.bool == false)
        #expect(try await harness.property(item, interface, "Label")?.string == "mail")
        #expect(try await harness.property(item, interface, "Attributes")?.stringDictionary?["service"] == "mail")
        #expect(try await harness.property(item, interface, "Type")?.signature.rawValue == "s")
        #expect(try await harness.property(item, interface, "Created")?.uint64 == 1_700_000_000)
        #expect(try await harness.property(item, interface, "Modified")?.uint64 == 1_700_000_000)
        #expect(try await harness.set(item, interface, "Label", .string("post")) == nil)
        #expect(try await harness.property(item, interface, "Label")?.string == "post")
        #expect(try await harness.set(item, interface, "Attributes", .stringDictionary(["service": "post"])) == nil)
        #expect(try await harness.property(item, interface, "Attributes")?.stringDictionary?["service"] == "post")
        #expect(try await harness.set(item, interface, "Type", .string("org.example.Post")) == nil)
        #expect(try await harness.property(item, interface, "Type")?.string == "org.example.Post")
    }

    @Test func deletingAnItemRemovesItsObjectAndAnEmptyCollectionGoesWithoutAPrompt() async throws {
        let harness = try await H()
        let item = try await harness.createItem()
        #expect(try await harness.ok(item, Names.Interface.item, "Delete").first?.objectPath == .root)
        #expect(try await harness.error(item, Names.Interface.item, "Delete") == Names.ErrorName.noSuchObject)
        let label = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(Names.PropertyKey.collectionLabel), .variant(.string("Spare")))])
        let created = try await harness.ok(
            H.service, Names.Interface.service, "CreateCollection", [label, .string("")])
        let spare = try #require(created.first?.objectPath?.rawValue)
        #expect(try await harness.ok(spare, Names.Interface.collection, "Delete").first?.objectPath == .root)
        #expect(try await harness.error(spare, Names.Interface.collection, "Delete") == Names.ErrorName.noSuchObject)
    }

    @Test func anotherClientsSessionAndPromptAreRefused() async throws {
        let harness = try await H(script: [.hold])
        let session = try await harness.plainSession(from: H.alice)
        #expect(
            try await harness.error(session, Names.Interface.session, "Close", from: H.bob)
                == "org.freedesktop.DBus.Error.AccessDenied")
        _ = try await harness.ok(H.service, Names.Interface.service, "Lock", [.objectPaths([ObjectPath(H.login)!])])
        let unlocked = try await harness.ok(
            H.service, Names.Interface.service, "Unlock", [.objectPaths([ObjectPath(H.login)!])])
        let prompt = try #require(unlocked.last?.objectPath?.rawValue)
        #expect(
            try await harness.error(prompt, Names.Interface.prompt, "Prompt", [.string("")], from: H.bob)
                == "org.freedesktop.DBus.Error.AccessDenied")
    }

    @Test func theSpellingsOfAClientThatLeftAreForgottenWithItsPrompts() async throws {
        let harness = try await H(script: [.hold])
        _ = try await harness.ok(H.service, Names.Interface.service, "Lock", [.objectPaths([ObjectPath(H.login)!])])
        for sender in [H.alice, H.bob] {
            let reply = try await harness.ok(
                H.service, Names.Interface.service, "Unlock", [.objectPaths([ObjectPath(H.defaultAlias)!])],
                from: sender)
            #expect(reply.last?.objectPath != .root, "\(sender) got a prompt")
        }
        #expect(harness.spellings.count == 2)
        harness.spellings.forget(owner: H.alice)
        #expect(harness.spellings.count == 1)
    }
}
