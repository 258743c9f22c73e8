// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

extension SecretInterfaces {
    /// `org.freedesktop.Secret.Item` at each item path (secret-service.md §3.3).
    static func item(_ context: BusContext) -> Interface {
        let service = context.service
        return Interface(
            SecretServiceNames.item,
            methods: [
                Method("Delete", out: [.init("Prompt", "o")]) { call in
                    try await service.deleteItem(try call.item().0, caller: call.caller)
                    return [.objectPath(.root)]
                },
                Method(
                    "GetSecret", in: .session("session"), out: [.init("secret", SecretServiceNames.secretSignature)]
                ) { call, session in
                    let id = try call.item().0
                    return [context.value(of: try await service.secret(of: id, session: session, caller: call.caller))]
                },
                Method("SetSecret", in: .secret("secret")) { call, secret in
                    try await service.setSecret(secret, of: try call.item().0, client: call.client, caller: call.caller)
                    return []
                },
            ],
            properties: [
                Property(
                    "Locked", "b",
                    get: { call in
                        let (id, info) = try call.item()
                        // A lock change announced after this call resolved the item sent this
                        // caller no signal: answer the state it announced.
                        return .boolean(context.readers?.noteRead(id, by: call.sender) ?? info.isLocked)
                    }),
                Property(
                    "Attributes", .stringDictionary("Attributes"),
                    get: { call in .stringDictionary(try read(call, context).attributes) },
                    set: { call, attributes in
                        try await service.setAttributes(attributes, of: try call.item().0, caller: call.caller)
                    }
                ),
                Property(
                    "Label", .string("Label"), get: { call in .string(try read(call, context).label) },
                    set: { call, label in try await service.setLabel(label, of: try call.item().0, caller: call.caller)
                    }
                ),
                Property(
                    "Type", .string("Type"), get: { call in .string(try read(call, context).type) },
                    set: { call, type in try await service.setType(type, of: try call.item().0, caller: call.caller) }
                ),
                Property("Created", "t", get: { call in .uint64(try read(call, context).created) }),
                Property("Modified", "t", get: { call in .uint64(try read(call, context).modified) }),
            ]
        )
    }

    /// The item a property read is for, noted as read by the caller: a lock change then sends it
    /// the item's new properties (``PropertyReaders``).
    private static func read(_ call: MethodCall, _ context: BusContext) throws -> ItemInfo {
        let (id, info) = try call.item()
        context.readers?.noteRead(id, by: call.sender)
        return info
    }

    /// `org.freedesktop.Secret.Session` (secret-service.md §3.4).
    static func session(_ context: BusContext) -> Interface {
        Interface(
            SecretServiceNames.session,
            methods: [
                Method("Close") { call in
                    try await context.service.closeSession(context.session(at: call.path), client: call.client)
                    return []
                }
            ]
        )
    }

    /// `org.freedesktop.Secret.Prompt` (secret-service.md §3.5).
    static func prompt(_ context: BusContext) -> Interface {
        Interface(
            SecretServiceNames.prompt,
            methods: [
                Method("Prompt", in: .string("window_id")) { call, window in
                    try await context.service.startPrompt(
                        try promptID(call.path), windowID: window, client: call.client,
                        application: call.caller.application)
                    return []
                },
                Method("Dismiss") { call in
                    try await context.service.dismissPrompt(try promptID(call.path), client: call.client)
                    return []
                },
            ],
            signals: [SignalDescription("Completed", [.init("dismissed", "b"), .init("result", "v")])]
        )
    }

    private static func promptID(_ path: ObjectPath) throws -> PromptID {
        guard case .prompt(let id)? = ObjectPaths.parse(path) else { throw ServiceError.noSuchObject }
        return id
    }
}
