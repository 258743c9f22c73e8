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
                    "OpenSession", in: .string("algorithm"), .variant("input"),
                    out: [.init("output", "v"), .init("result", "o")]
                ) { call, algorithm, input in
                    let sessionInput: SessionInput =
                        switch input {
                        case .string(let text): .string(text)
                        case .bytes(let bytes): .bytes(bytes)  // a public key
                        case let other: .other(signature: other.signature.rawValue)
                        }
                    let (output, session) = try await service.openSession(
                        algorithm: algorithm, input: sessionInput, client: call.client)
                    let outputValue: DBusValue =
                        switch output {
                        case .string(let text): .string(text)
                        case .bytes(let bytes): .bytes(bytes)
                        }
                    return [.variant(outputValue), .objectPath(ObjectPaths.path(of: session))]
                },
                Method(
                    "CreateCollection", in: .variantDictionary("properties"), .string("alias"),
                    out: [.init("collection", "o"), .init("prompt", "o")]
                ) { call, properties, alias in
                    var label = ""
                    if let value = properties[SecretServiceNames.collectionLabelKey] {
                        // A property's value is a variant: any type may arrive.
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
                    "SearchItems", in: .stringDictionary("attributes"),
                    out: [.init("unlocked", "ao"), .init("locked", "ao")]
                ) { call, query in
                    let (unlocked, locked) = try await service.searchItems(query)
                    return [.objectPaths(ObjectPaths.paths(of: unlocked)), .objectPaths(ObjectPaths.paths(of: locked))]
                },
                Method("Unlock", in: .objectPaths("objects"), out: [.init("unlocked", "ao"), .init("prompt", "o")]) {
                    call, paths in
                    let spelled = await context.references(for: paths)
                    let (unlocked, prompt) = try await service.unlock(spelled.map(\.reference), client: call.client)
                    if let prompt { context.spellings?.remember(spelled, for: prompt, owner: call.sender) }
                    return reply(PromptSpellings.echo(spelled, of: unlocked), prompt)
                },
                Method("Lock", in: .objectPaths("objects"), out: [.init("locked", "ao"), .init("Prompt", "o")]) {
                    call, paths in
                    let spelled = await context.references(for: paths)
                    let (locked, prompt) = await service.lock(spelled.map(\.reference), client: call.client)
                    return reply(PromptSpellings.echo(spelled, of: locked), prompt)
                },
                Method(
                    "GetSecrets", in: .objectPaths("items"), .session("session"),
                    out: [.init("secrets", "a{o(oayays)}")]
                ) { call, paths, session in
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
                Method("ReadAlias", in: .string("name"), out: [.init("collection", "o")]) { call, name in
                    let id = await service.readAlias(name)
                    return [.objectPath(id.map(ObjectPaths.path(of:)) ?? .root)]
                },
                Method("SetAlias", in: .string("name"), .objectPath("collection")) { call, name, path in
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
    private static func reply(_ spellings: [ObjectPath], _ prompt: PromptID?) -> [DBusValue] {
        [.objectPaths(spellings), .objectPath(prompt.map(ObjectPaths.path(of:)) ?? .root)]
    }
}
