// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService

/// Turns service events into the signals of secret-service.md §7, on each object's real path
/// (never an alias path), with new values in `PropertiesChanged`.
public enum SignalEmitter {
    /// The messages one event becomes, in sending order.
    public static func messages(for event: ServiceEvent) -> [OutgoingMessage] {
        let servicePath = SecretServiceNames.servicePath
        switch event {
        case .collectionCreated(let id, let all), .collectionDeleted(let id, let all):
            let member: MemberName =
                if case .collectionCreated = event { "CollectionCreated" } else { "CollectionDeleted" }
            return [
                .signal(
                    path: servicePath, interface: SecretServiceNames.service, member: member,
                    [.objectPath(ObjectPaths.path(of: id))]),
                Router.propertiesChanged(
                    path: servicePath, interface: SecretServiceNames.service,
                    [("Collections", .objectPaths(all.map(ObjectPaths.path(of:))))]),
            ]
        case .collectionChanged(let id, let properties):
            let path = ObjectPaths.path(of: id)
            let changed = Router.propertiesChanged(
                path: path, interface: SecretServiceNames.collection, properties.map(value(of:)))
            // gnome-keyring announces CollectionChanged for a new label or lock state; an item
            // coming or going shows only in ItemCreated/ItemDeleted and the Items property (§7).
            let announces = properties.contains {
                if case .items = $0 { false } else if case .modified = $0 { false } else { true }
            }
            guard announces else { return [changed] }
            return [
                .signal(
                    path: servicePath, interface: SecretServiceNames.service, member: "CollectionChanged",
                    [.objectPath(path)]),
                changed,
            ]
        case .itemCreated(let id, _), .itemDeleted(let id, _):
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
        case .promptCompleted(let id, let owner, let dismissed, let result):
            // Unicast to the prompt's owner, as gnome-keyring does.
            return [
                .signal(
                    path: ObjectPaths.path(of: id), interface: SecretServiceNames.prompt, member: "Completed",
                    destination: owner.rawValue, [.boolean(dismissed), .variant(value(of: result))])
            ]
        }
    }

    /// The typed result: `ao` for Unlock/Lock, `o` for creations, even when dismissed (§6.11).
    static func value(of result: PromptResult) -> DBusValue {
        switch result {
        case .paths(let spellings): .objectPaths(spellings.compactMap(ObjectPath.init))
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
        case .items(let items): ("Items", .objectPaths(items.map(ObjectPaths.path(of:))))
        }
    }

    private static func value(of property: ItemProperty) -> (String, DBusValue) {
        switch property {
        case .label(let label): ("Label", .string(label))
        case .locked(let locked): ("Locked", .boolean(locked))
        case .modified(let time): ("Modified", .uint64(time))
        case .attributes(let attributes): ("Attributes", .stringDictionary(attributes))
        case .type(let type): ("Type", .string(type))
        }
    }
}
