// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

extension SecretInterfaces {
    /// `org.freedesktop.Secret.Collection` at collection and alias paths (secret-service.md §3.2).
    static func collection(_ context: BusContext) -> Interface {
        let service = context.service
        return Interface(
            SecretServiceNames.collection,
            methods: [
                Method("Delete", out: [.init("prompt", "o")]) { call in
                    // A non-empty collection needs the person: a prompt that asks (secret-service.md §6.10).
                    let prompt = try await service.deleteCollection(try call.collection().0, caller: call.caller)
                    return [.objectPath(prompt.map(ObjectPaths.path(of:)) ?? .root)]
                },
                Method("SearchItems", in: .stringDictionary("attributes"), out: [.init("results", "ao")]) {
                    call, query in
                    let items = try await service.searchItems(query, in: try call.collection().0)
                    return [.objectPaths(ObjectPaths.paths(of: items))]
                },
                Method(
                    "CreateItem", in: .variantDictionary("properties"), .secret("secret"), .bool("replace"),
                    out: [.init("item", "o"), .init("prompt", "o")]
                ) { call, properties, secret, replace in
                    let id = try call.collection().0
                    // Unknown keys are ignored (secret-service.md §6.3 REC); known keys must have their
                    // type, which a variant does not promise.
                    var label = ""
                    var attributes: [String: String] = [:]
                    var type = ""
                    if let value = properties[SecretServiceNames.itemLabelKey] {
                        guard let text = value.string else {
                            throw ServiceError.invalidArgument("Label must be a string")
                        }
                        label = text
                    }
                    if let value = properties[SecretServiceNames.itemAttributesKey] {
                        guard let map = value.stringDictionary else {
                            throw ServiceError.invalidArgument("Attributes must be a{ss}")
                        }
                        attributes = map
                    }
                    if let value = properties[SecretServiceNames.itemTypeKey] {
                        guard let text = value.string else {
                            throw ServiceError.invalidArgument("Type must be a string")
                        }
                        type = text
                    }
                    let item = try await service.createItem(
                        in: id, label: label, attributes: attributes, type: type, secret: secret, replace: replace,
                        client: call.client, caller: call.caller)
                    return [.objectPath(ObjectPaths.path(of: item)), .objectPath(.root)]
                },
            ],
            properties: [
                Property(
                    "Items", "ao",
                    get: { call in
                        .objectPaths(ObjectPaths.paths(of: await service.itemIDs(in: try call.collection().0)))
                    }),
                Property(
                    "Label", .string("Label"), get: { call in .string(try call.collection().1.label) },
                    set: { call, label in try await service.setLabel(label, of: try call.collection().0) }
                ),
                Property("Locked", "b", get: { call in .boolean(try call.collection().1.isLocked) }),
                Property("Created", "t", get: { call in .uint64(try call.collection().1.created) }),
                Property("Modified", "t", get: { call in .uint64(try call.collection().1.modified) }),
            ],
            signals: [
                SignalDescription("ItemCreated", [.init("item", "o")]),
                SignalDescription("ItemDeleted", [.init("item", "o")]),
                SignalDescription("ItemChanged", [.init("item", "o")]),
            ]
        )
    }
}
