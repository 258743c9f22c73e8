import PuffService
import Testing

// SPDX-License-Identifier: Apache-2.0
@testable import PuffDBus
@testable import PuffServiceBus

@Suite struct SignalEmitterTests {
    func describe(_ message: OutgoingMessage) -> String {
        guard case .signal(let path, let interface, let member) = message.kind else { return "not a signal" }
        return "\(path) \(interface).\(member)"
    }

    @Test func anItemCreationSignalsOnTheCollectionsRealPath() {
        let item = ItemID(collection: .login, number: 1)
        let messages = SignalEmitter.messages(for: .itemCreated(item))
        #expect(
            messages.map(describe) == [
                "/org/freedesktop/secrets/collection/login org.freedesktop.Secret.Collection.ItemCreated"
            ])
        #expect(messages.first?.body.first?.objectPath?.rawValue == "/org/freedesktop/secrets/collection/login/1")
    }

    @Test func propertyChangesCarryNewValuesNotInvalidations() throws {
        let item = ItemID(collection: .login, number: 2)
        let messages = SignalEmitter.messages(for: .itemChanged(item, [.label("new"), .locked(true)]))
        #expect(
            messages.map(describe) == [
                "/org/freedesktop/secrets/collection/login org.freedesktop.Secret.Collection.ItemChanged",
                "/org/freedesktop/secrets/collection/login/2 org.freedesktop.DBus.Properties.PropertiesChanged",
            ])
        let changed = try #require(messages.last?.body)
        #expect(changed[0].string == "org.freedesktop.Secret.Item")
        #expect(changed[1].variantDictionary?["Label"]?.string == "new")
        #expect(changed[1].variantDictionary?["Locked"]?.bool == true)
        #expect(changed[2].signature == "as")
        guard case .array(_, let invalidated) = changed[2] else {
            Issue.record("invalidated_properties is not an array")
            return
        }
        #expect(invalidated.isEmpty)
    }

    @Test func collectionCreationSignalsAtOnceAndLeavesTheListToTheCoalescer() {
        let messages = SignalEmitter.messages(for: .collectionCreated(CollectionID("x")))
        #expect(messages.map(describe) == ["/org/freedesktop/secrets org.freedesktop.Secret.Service.CollectionCreated"])
        let changed = SignalEmitter.collectionsChanged([.login, CollectionID("x")])
        #expect(describe(changed) == "/org/freedesktop/secrets org.freedesktop.DBus.Properties.PropertiesChanged")
        #expect(
            changed.body[1].variantDictionary?["Collections"]?.objectPaths?.map(\.rawValue) == [
                "/org/freedesktop/secrets/collection/login", "/org/freedesktop/secrets/collection/x",
            ])
    }

    @Test func anItemsChangeCarriesEveryPathAndTheModificationTime() {
        let items = [ItemID(collection: .login, number: 3), ItemID(collection: .login, number: 10)]
        let changed = SignalEmitter.itemsChanged(in: .login, items: items, modified: 42)
        #expect(
            describe(changed)
                == "/org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.PropertiesChanged")
        #expect(changed.body[0].string == "org.freedesktop.Secret.Collection")
        #expect(
            changed.body[1].variantDictionary?["Items"]?.objectPaths?.map(\.rawValue) == [
                "/org/freedesktop/secrets/collection/login/3", "/org/freedesktop/secrets/collection/login/10",
            ])
        let modified = changed.body[1].variantDictionary?["Modified"]
        #expect({ if case .uint64(42)? = modified { true } else { false } }(), "Modified is t 42")
    }

    /// Clients assert the result type even for dismissed prompts (secret-service.md §6.11).
    @Test(arguments: [
        (PromptResult.objects([]), "ao"), (.collection(nil), "o"), (.item(nil), "o"), (.none, "s"),
    ])
    func completedIsUnicastWithATypedResult(_ result: PromptResult, _ signature: String) {
        let messages = SignalEmitter.messages(
            for: .promptCompleted(PromptID("p1"), owner: ClientID(":1.7"), dismissed: true, result: result))
        #expect(
            messages.map(describe) == ["/org/freedesktop/secrets/prompt/p1 org.freedesktop.Secret.Prompt.Completed"])
        #expect(messages.first?.destination == ":1.7")
        #expect(messages.first?.body.first?.bool == true)
        #expect(messages.first?.body.last?.variantContents?.signature.rawValue == signature)
    }

    @Test(arguments: [
        (ServiceError.noSuchObject, "org.freedesktop.Secret.Error.NoSuchObject"),
        (.isLocked, "org.freedesktop.Secret.Error.IsLocked"),
        (.noSession, "org.freedesktop.Secret.Error.NoSession"),
        (.accessDenied, "org.freedesktop.DBus.Error.AccessDenied"),
        (.unsupportedAlgorithm, "org.freedesktop.DBus.Error.NotSupported"),
        (.plainSessionsTurnedOff, "org.freedesktop.DBus.Error.NotSupported"),
        (.invalidArgument("x"), "org.freedesktop.DBus.Error.InvalidArgs"),
        (.alreadyExists, "org.freedesktop.Secret.Error.AlreadyExists"),
        (.limitExceeded("x"), "org.freedesktop.DBus.Error.LimitsExceeded"),
        (.failed("x"), "org.freedesktop.DBus.Error.Failed"),
        (.passcodePolicy(.digits6), "io.puff.Error.PasscodePolicy"),
    ])
    func serviceErrorsMapToTheirDBusNames(_ error: ServiceError, _ name: String) {
        #expect(DBusErrorMapping.map(error).name.rawValue == name)
    }
}

extension SignalEmitterTests {
    @Test func onlyLabelAndLockChangesAnnounceCollectionChanged() {
        let modifiedOnly = SignalEmitter.messages(for: .collectionChanged(.login, [.modified(5)]))
        #expect(
            modifiedOnly.map(describe) == [
                "/org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.PropertiesChanged"
            ])
        let locked = SignalEmitter.messages(for: .collectionChanged(.login, [.locked(true)]))
        #expect(
            locked.map(describe).first == "/org/freedesktop/secrets org.freedesktop.Secret.Service.CollectionChanged")
    }
}
