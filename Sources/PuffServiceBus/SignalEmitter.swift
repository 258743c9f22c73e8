// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService

/// Turns service events into the signals of secret-service.md §7, on each object's real path
/// (never an alias path), with new values in `PropertiesChanged`.
public enum SignalEmitter {
    /// The messages one event becomes, in sending order. `Collections` and `Items` changes are not
    /// among them: ``ListSignalCoalescer`` sends those once per window (secret-service.md §7).
    ///
    /// `spellings` gives a completed `Unlock` prompt's paths as its caller spelled them; without
    /// it each object's own path goes out.
    public static func messages(for event: ServiceEvent, spellings: PromptSpellings? = nil) -> [OutgoingMessage] {
        let servicePath = SecretServiceNames.servicePath
        switch event {
        case .collectionCreated(let id), .collectionDeleted(let id):
            let member: MemberName =
                if case .collectionCreated = event { "CollectionCreated" } else { "CollectionDeleted" }
            return [
                .signal(
                    path: servicePath, interface: SecretServiceNames.service, member: member,
                    [.objectPath(ObjectPaths.path(of: id))])
            ]
        case .collectionChanged(let id, let properties):
            let path = ObjectPaths.path(of: id)
            let changed = Router.propertiesChanged(
                path: path, interface: SecretServiceNames.collection, properties.map(value(of:)))
            // gnome-keyring announces CollectionChanged for a new label or lock state, not for a
            // new modification time alone (§7).
            let announces = properties.contains { if case .modified = $0 { false } else { true } }
            guard announces else { return [changed] }
            return [
                .signal(
                    path: servicePath, interface: SecretServiceNames.service, member: "CollectionChanged",
                    [.objectPath(path)]),
                changed,
            ]
        case .itemCreated(let id), .itemDeleted(let id):
            let member: MemberName = if case .itemCreated = event { "ItemCreated" } else { "ItemDeleted" }
            return [
                .signal(
                    path: ObjectPaths.path(of: id.collection), interface: SecretServiceNames.collection, member: member,
                    [.objectPath(ObjectPaths.path(of: id))])
            ]
        case .itemChanged(let id, let properties):
            let path = ObjectPaths.path(of: id)
            return [
                .signal(
                    path: ObjectPaths.path(of: id.collection), interface: SecretServiceNames.collection,
                    member: "ItemChanged",
                    [.objectPath(path)]),
                Router.propertiesChanged(path: path, interface: SecretServiceNames.item, properties.map(value(of:))),
            ]
        case .lockChanged(let id, let locked, let view):
            // To everyone, the collection's signals only: each item's go to the connections that
            // read its properties (``lockedItemsChanged(in:locked:view:readers:)``), with no
            // per-item `ItemChanged` (secret-service.md §7, issue 27).
            return Self.messages(for: .collectionChanged(id, [.locked(locked)] + view.collection))
        case .promptCompleted(let id, let owner, let dismissed, let result):
            // Unicast to the prompt's owner, as gnome-keyring does.
            return [
                .signal(
                    path: ObjectPaths.path(of: id), interface: SecretServiceNames.prompt, member: "Completed",
                    destination: owner.rawValue,
                    [.boolean(dismissed), .variant(value(of: result, prompt: id, spellings))])
            ]
        }
    }

    /// The item signals of a lock change: per connection, `PropertiesChanged` of the Item
    /// interface with the new `Locked` (and, when the view changed, `Label`, `Attributes`, `Type`,
    /// `Created`, `Modified`) for each item it read, unicast to it; items gone since are skipped.
    public static func lockedItemsChanged(
        in collection: CollectionID, locked: Bool, view: LockView, readers: [(reader: String, numbers: [UInt64])]
    ) -> [OutgoingMessage] {
        var messages: [OutgoingMessage] = []
        for (reader, numbers) in readers {
            for number in numbers {
                guard let properties = view.itemProperties(of: number, locked: locked) else { continue }
                var changed = Router.propertiesChanged(
                    path: ObjectPaths.path(of: ItemID(collection: collection, number: number)),
                    interface: SecretServiceNames.item, properties.map(value(of:)))
                changed.destination = reader
                messages.append(changed)
            }
        }
        return messages
    }

    /// `PropertiesChanged` of the service's `Collections`, with the new list.
    public static func collectionsChanged(_ all: [CollectionID]) -> OutgoingMessage {
        Router.propertiesChanged(
            path: SecretServiceNames.servicePath, interface: SecretServiceNames.service,
            [("Collections", .objectPaths(all.map(ObjectPaths.path(of:))))])
    }

    /// `PropertiesChanged` of a collection's `Items` and `Modified`, with the new values.
    public static func itemsChanged(in collection: CollectionID, items: [ItemID], modified: UInt64) -> OutgoingMessage {
        Router.propertiesChanged(
            path: ObjectPaths.path(of: collection), interface: SecretServiceNames.collection,
            [("Items", .objectPaths(ObjectPaths.paths(of: items))), ("Modified", .uint64(modified))])
    }

    /// The typed result: `ao` for Unlock/Lock, `o` for creations, even when dismissed (§6.11).
    static func value(of result: PromptResult, prompt: PromptID? = nil, _ spellings: PromptSpellings? = nil)
        -> DBusValue
    {
        switch result {
        case .objects(let references):
            if let prompt, let spellings {
                .objectPaths(spellings.take(prompt, echoing: references))
            } else {
                .objectPaths(references.map(PromptSpellings.path(of:)))
            }
        case .collection(let id): .objectPath(id.map(ObjectPaths.path(of:)) ?? .root)
        case .item(let id): .objectPath(id.map(ObjectPaths.path(of:)) ?? .root)
        case .none: .string("")
        }
    }

    private static func value(of property: CollectionProperty) -> (String, DBusValue) {
        switch property {
        case .label(let label): ("Label", .string(label))
        case .locked(let locked): ("Locked", .boolean(locked))
        case .modified(let time): ("Modified", .uint64(time))
        }
    }

    private static func value(of property: ItemProperty) -> (String, DBusValue) {
        switch property {
        case .label(let label): ("Label", .string(label))
        case .locked(let locked): ("Locked", .boolean(locked))
        case .modified(let time): ("Modified", .uint64(time))
        case .created(let time): ("Created", .uint64(time))
        case .attributes(let attributes): ("Attributes", .stringDictionary(attributes))
        case .type(let type): ("Type", .string(type))
        }
    }
}
