// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import Testing

@testable import PuffDBus
@testable import PuffServiceBus

/// A lock change with two items in its snapshot (numbers 1 and 3), readable or not.
func lockView(readable: Bool) -> LockView {
    var items = ItemTable()
    for number: UInt64 in [1, 3] {
        items[number] = StoredItem(
            collection: "login", number: number, label: "L\(number)", attributes: ["xdg:schema": "s", "k": "v"],
            type: "", contentType: "text/plain", sealedSecret: [], created: 10, modified: 20)
    }
    return LockView(
        collection: readable ? [.label("Login"), .modified(20)] : [], itemsReadable: readable, items: items)
}

@Suite struct LockSignalTests {
    func describe(_ message: OutgoingMessage) -> String {
        guard case .signal(let path, let interface, let member) = message.kind else { return "not a signal" }
        return "\(path) \(interface).\(member)"
    }

    @Test func aLockChangeBroadcastsTheCollectionsSignalsAndNoItemChanged() throws {
        let messages = SignalEmitter.messages(for: .lockChanged(.login, locked: true, view: lockView(readable: false)))
        #expect(
            messages.map(describe) == [
                "/org/freedesktop/secrets org.freedesktop.Secret.Service.CollectionChanged",
                "/org/freedesktop/secrets/collection/login org.freedesktop.DBus.Properties.PropertiesChanged",
            ])
        #expect(messages.allSatisfy { $0.destination == nil })
        #expect(messages[1].body[1].variantDictionary?.keys.sorted() == ["Locked"])
    }

    @Test func eachReaderGetsItsOwnItemsUnicastAndItemsGoneSinceAreSkipped() throws {
        let messages = SignalEmitter.lockedItemsChanged(
            in: .login, locked: true, view: lockView(readable: false),
            readers: [(":1.7", [1, 2, 3]), (":1.9", [3])])
        let login = "/org/freedesktop/secrets/collection/login"
        #expect(
            messages.map { "\($0.destination ?? "everyone") \(describe($0))" } == [
                ":1.7 \(login)/1 org.freedesktop.DBus.Properties.PropertiesChanged",
                ":1.7 \(login)/3 org.freedesktop.DBus.Properties.PropertiesChanged",
                ":1.9 \(login)/3 org.freedesktop.DBus.Properties.PropertiesChanged",
            ])
        #expect(messages.allSatisfy { $0.body[0].string == "org.freedesktop.Secret.Item" })
        #expect(messages.allSatisfy { $0.body[1].variantDictionary?.keys.sorted() == ["Locked"] })
        #expect(messages.allSatisfy { $0.body[1].variantDictionary?["Locked"]?.bool == true })
    }

    @Test func anUnlockThatReadTheItemsCarriesTheirProperties() throws {
        let items = SignalEmitter.lockedItemsChanged(
            in: .login, locked: false, view: lockView(readable: true), readers: [(":1.7", [1])])
        let item = try #require(items.first?.body[1].variantDictionary)
        #expect(item.keys.sorted() == ["Attributes", "Created", "Label", "Locked", "Modified", "Type"])
        #expect(item["Locked"]?.bool == false)
        #expect(item["Label"]?.string == "L1")
        #expect(item["Type"]?.string == "s", "Type reports xdg:schema")
        let messages = SignalEmitter.messages(for: .lockChanged(.login, locked: false, view: lockView(readable: true)))
        let collection = try #require(messages.last?.body[1].variantDictionary)
        #expect(collection.keys.sorted() == ["Label", "Locked", "Modified"])
    }
}
