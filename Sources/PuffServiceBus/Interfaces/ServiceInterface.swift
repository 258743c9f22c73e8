// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffService

extension SecretInterfaces {
    /// `org.freedesktop.Secret.Service` at `/org/freedesktop/secrets` (secret-service.md §3.1).
    static func service(_ context: BusContext) -> Interface {
        let service = context.service
        return Interface(
            SecretServiceNames.service,
            methods: [
                Method(
                    "OpenSession", in: [.init("algorithm", "s"), .init("input", "v")],
                    out: [.init("output", "v"), .init("result", "o")]
                ) { call in
                    let algorithm = try call.argument(0, \.string)
                    let input: SessionInput =
                        switch try call.argument(1, \.variantContents) {
                        case .string(let text): .string(text)
                        case .bytes(let bytes): .bytes(bytes)  // a public key
                        case let other: .other(signature: other.signature.rawValue)
                        }
                    let (output, session) = try await service.openSession(
                        algorithm: algorithm, input: input, client: call.client)
                    let outputValue: DBusValue =
                        switch output {
                        case .string(let text): .string(text)
                        case .bytes(let bytes): .bytes(bytes)
                        }
                    return [.variant(outputValue), .objectPath(ObjectPaths.path(of: session))]
                },
                Method(
                    "CreateCollection", in: [.init("properties", "a{sv}"), .init("alias", "s")],
                    out: [.init("collection", "o"), .init("prompt", "o")]
                ) { call in
                    let properties = try call.argument(0, \.variantDictionary)
                    let alias = try call.argument(1, \.string)
                    var label = ""
                    if let value = properties[SecretServiceNames.collectionLabelKey] {
                        guard let text = value.string else {
                            throw ServiceError.invalidArgument("Label must be a string")
                        }
                        label = text
                    }
                    let (id, prompt) = try await service.createCollection(
                        label: label, alias: alias.isEmpty ? nil : alias, client: call.client)
                    return [
                        .objectPath(id.map(ObjectPaths.path(of:)) ?? .root),
                        .objectPath(prompt.map(ObjectPaths.path(of:)) ?? .root),
                    ]
                },
                Method(
                    "SearchItems", in: [.init("attributes", "a{ss}")],
                    out: [.init("unlocked", "ao"), .init("locked", "ao")]
                ) { call in
                    let query = try call.argument(0, \.stringDictionary)
                    let (unlocked, locked) = try await service.searchItems(query)
                    return [.objectPaths(ObjectPaths.paths(of: unlocked)), .objectPaths(ObjectPaths.paths(of: locked))]
                },
                Method("Unlock", in: [.init("objects", "ao")], out: [.init("unlocked", "ao"), .init("prompt", "o")]) {
                    call in
                    let (unlocked, prompt) = try await service.unlock(
                        try await references(call, context), client: call.client)
                    return reply(unlocked, prompt)
                },
                Method("Lock", in: [.init("objects", "ao")], out: [.init("locked", "ao"), .init("Prompt", "o")]) {
                    call in
                    let (locked, prompt) = await service.lock(try await references(call, context), client: call.client)
                    return reply(locked, prompt)
                },
                Method(
                    "GetSecrets", in: [.init("items", "ao"), .init("session", "o")],
                    out: [.init("secrets", "a{o(oayays)}")]
                ) { call in
                    let paths = try call.argument(0, \.objectPaths)
                    let session = context.session(at: try call.argument(1, \.objectPath))
                    var requested: [(ObjectPath, ItemID)] = []
                    for path in paths {
                        if let id = await context.existingItem(at: path) { requested.append((path, id)) }
                    }
                    let found = try await service.secrets(
                        for: requested.map(\.1), session: session, caller: call.caller)
                    let byItem = Dictionary(found, uniquingKeysWith: { first, _ in first })
                    // Keys are the paths exactly as requested: libsecret matches them to its proxies.
                    var seen = Set<ObjectPath>()
                    let entries: [DBusValue.DictEntry] = requested.compactMap { path, id in
                        guard let secret = byItem[id], seen.insert(path).inserted else { return nil }
                        return .init(.objectPath(path), context.value(of: secret))
                    }
                    return [.dictionary(key: "o", value: SecretServiceNames.secretSignature, entries)]
                },
                Method("ReadAlias", in: [.init("name", "s")], out: [.init("collection", "o")]) { call in
                    let name = try call.argument(0, \.string)
                    let id = await service.readAlias(name)
                    return [.objectPath(id.map(ObjectPaths.path(of:)) ?? .root)]
                },
                Method("SetAlias", in: [.init("name", "s"), .init("collection", "o")]) { call in
                    let name = try call.argument(0, \.string)
                    let path = try call.argument(1, \.objectPath)
                    if path == .root {
                        try await service.setAlias(name, to: nil)
                    } else if case .collection(let id)? = ObjectPaths.parse(path) {
                        try await service.setAlias(name, to: id)
                    } else if case .alias? = ObjectPaths.parse(path) {
                        try await service.setAlias(name, to: try await context.collection(at: path))
                    } else {
                        throw ServiceError.invalidArgument("not a collection path")
                    }
                    return []
                },
            ],
            properties: [
                Property(
                    "Collections", "ao",
                    get: { _ in
                        .objectPaths(await service.collections.map(ObjectPaths.path(of:)))
                    })
            ],
            signals: [
                SignalDescription("CollectionCreated", [.init("collection", "o")]),
                SignalDescription("CollectionDeleted", [.init("collection", "o")]),
                SignalDescription("CollectionChanged", [.init("collection", "o")]),
            ]
        )
    }

    /// The `(ao, o)` reply of Lock and Unlock: the caller's spellings, then the prompt or `/`.
    private static func reply(_ spellings: [String], _ prompt: PromptID?) -> [DBusValue] {
        [.objectPaths(spellings.compactMap(ObjectPath.init)), .objectPath(prompt.map(ObjectPaths.path(of:)) ?? .root)]
    }

    private static func references(_ call: MethodCall, _ context: BusContext) async throws -> [ObjectReference] {
        var references: [ObjectReference] = []
        for path in try call.argument(0, \.objectPaths) {
            references.append(await context.reference(for: path))
        }
        return references
    }
}
