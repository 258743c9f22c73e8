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

    @Test func aLockChangeBecomesEachItemsSignalsThenTheCollections() throws {
        let messages = SignalEmitter.messages(for: .lockChanged(.login, locked: true, view: lockView(readable: false)))
        let login = "/org/freedesktop/secrets/collection/login"
        #expect(
            messages.map(describe) == [
                "\(login) org.freedesktop.Secret.Collection.ItemChanged",
                "\(login)/1 org.freedesktop.DBus.Properties.PropertiesChanged",
                "\(login) org.freedesktop.Secret.Collection.ItemChanged",
                "\(login)/3 org.freedesktop.DBus.Properties.PropertiesChanged",
                "/org/freedesktop/secrets org.freedesktop.Secret.Service.CollectionChanged",
                "\(login) org.freedesktop.DBus.Properties.PropertiesChanged",
            ])
        #expect(messages[1].body[1].variantDictionary?.keys.sorted() == ["Locked"])
    }

    @Test func anUnlockThatReadTheItemsCarriesTheirProperties() throws {
        let messages = SignalEmitter.messages(for: .lockChanged(.login, locked: false, view: lockView(readable: true)))
        let item = try #require(messages[1].body[1].variantDictionary)
        #expect(item.keys.sorted() == ["Attributes", "Created", "Label", "Locked", "Modified", "Type"])
        #expect(item["Locked"]?.bool == false)
        #expect(item["Label"]?.string == "L1")
        #expect(item["Type"]?.string == "s", "Type reports xdg:schema")
        let collection = try #require(messages.last?.body[1].variantDictionary)
        #expect(collection.keys.sorted() == ["Label", "Locked", "Modified"])
    }
}
