// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// The Secret Service calls answered on the bus thread from the service's ``ReadView`` (design
/// core-reshaped §7): `Item.GetSecret` and `Service.GetSecrets` whose items can all be read there,
/// `Service.SearchItems`, and an unlocked item's properties (`Properties.Get`/`GetAll`).
/// Anything else, or a read the view declines, answers nil and goes to the caller's lane, where
/// the service answers it as before (its errors, prompts and access questions included).
enum FastPath {
    /// The ``ObjectServer/FastPath`` over `view`; property reads are noted in `readers`.
    static func handler(_ view: ReadView, readers: PropertyReaders?) -> ObjectServer.FastPath {
        { message, context in reply(to: message, context: context, view: view, readers: readers) }
    }

    /// The reply to `message` from `view`, or nil.
    static func reply(
        to message: IncomingMessage, context: CallContext, view: ReadView, readers: PropertyReaders? = nil
    ) -> OutgoingMessage? {
        guard message.kind == .methodCall, message.expectsReply, message.undecodedBody == nil,
            let path = message.path
        else { return nil }
        let caller = Caller(context)
        switch (message.member, message.interface, message.signature.rawValue) {
        case ("GetSecret", SecretServiceNames.item.rawValue?, "o"), ("GetSecret", nil, "o"):
            guard case .item(let id)? = ObjectPaths.parse(path), let session = session(message.arguments[0]),
                let secret = view.secrets(of: [id], session: session, caller: caller)?.first
            else { return nil }
            return .reply(to: message, [BusContext.value(of: secret)])
        case ("GetSecrets", SecretServiceNames.service.rawValue?, "aoo"), ("GetSecrets", nil, "aoo"):
            guard path == SecretServiceNames.servicePath, let paths = message.arguments[0].objectPaths,
                paths.count <= ReadView.batchLimit, let session = session(message.arguments[1])
            else { return nil }
            var ids: [ItemID] = []
            for path in paths {
                guard case .item(let id)? = ObjectPaths.parse(path) else { return nil }
                ids.append(id)
            }
            guard let secrets = view.secrets(of: ids, session: session, caller: caller) else { return nil }
            // Keys are the paths exactly as requested, each once (as the lane answers).
            var seen = Set<ObjectPath>()
            let entries: [DBusValue.DictEntry] = zip(paths, secrets).compactMap { path, secret in
                seen.insert(path).inserted ? .init(.objectPath(path), BusContext.value(of: secret)) : nil
            }
            return .reply(to: message, [.dictionary(key: "o", value: SecretServiceNames.secretSignature, entries)])
        case ("SearchItems", SecretServiceNames.service.rawValue?, "a{ss}"), ("SearchItems", nil, "a{ss}"):
            guard path == SecretServiceNames.servicePath, let query = message.arguments[0].stringDictionary,
                let (unlocked, locked) = view.search(query)
            else { return nil }
            return .reply(
                to: message,
                [.objectPaths(ObjectPaths.paths(of: unlocked)), .objectPaths(ObjectPaths.paths(of: locked))])
        case ("Get", Self.properties?, "ss"), ("GetAll", Self.properties?, "s"):
            return propertiesReply(to: message, path: path, sender: context.sender, view: view, readers: readers)
        default:
            return nil
        }
    }

    /// The session a session path names; nil for any other path (the lane answers `NoSession`).
    private static func session(_ value: DBusValue) -> SessionID? {
        guard let path = value.objectPath, case .session(let id)? = ObjectPaths.parse(path) else { return nil }
        return id
    }
}
