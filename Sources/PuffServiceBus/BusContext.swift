// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffService
import PuffStore

/// What the tree resolved a Secret Service path to, once per call; handlers read ids and
/// properties from it instead of asking the service again.
enum SecretObject: Sendable {
    case service
    /// A collection, reached by its own path or an alias, with its properties at resolution time.
    case collection(CollectionID, CollectionInfo)
    /// An item, reached by its own path or through an alias, with its properties at resolution time.
    case item(ItemID, ItemInfo)
    case session(SessionID)
    case prompt(PromptID)
    /// `/io/puff/Control`, on the control connection (``ControlBus``).
    case control
    /// The portal backend (``PortalNames/path``), or one of its live requests.
    case portal
    case portalRequest
}

/// What every interface handler needs: the service and the path ↔ id translations that involve
/// live state (aliases resolve at call time, so `SetAlias` takes effect at once).
struct BusContext: Sendable {
    let service: SecretService
    /// The agents `puffctl agent` registers, when the daemon asks agents at all.
    var agents: AgentPrompter? = nil
    /// Sends a message on the connection serving the interfaces (the control connection's
    /// `Progress` signals); nil where nothing is sent.
    var send: (@Sendable (OutgoingMessage) -> Void)? = nil
    /// The control connection's callers that left, for calls that wait on a security key.
    var departures: CallerDepartures? = nil
    /// Which connections read which items' properties (the Secret Service connection's).
    var readers: PropertyReaders? = nil
    /// The paths callers spelled in `Unlock`, for its prompt's `Completed`.
    var spellings: PromptSpellings? = nil
    /// The Secret portal's backend (its requests and who may call it); closed to all by default.
    var portal: PortalBackend = .closed
    /// Checks the shared store of fleet collections (`CheckStore`); none when none is configured.
    var checkStore: @Sendable () async -> [StoreCheck] = { [] }

    /// The collection at a collection path or an alias path, with its properties.
    func resolveCollection(at path: ObjectPath) async -> (CollectionID, CollectionInfo)? {
        let id: CollectionID
        switch ObjectPaths.parse(path) {
        case .collection(let collection)?: id = collection
        case .alias(let name)?:
            guard let collection = await service.readAlias(name) else { return nil }
            id = collection
        default: return nil
        }
        guard let info = try? await service.collectionInfo(id) else { return nil }
        return (id, info)
    }

    /// The collection at a collection path or an alias path, or `NoSuchObject`.
    func collection(at path: ObjectPath) async throws -> CollectionID {
        guard let (id, _) = await resolveCollection(at: path) else { throw ServiceError.noSuchObject }
        return id
    }

    /// The item at an item path (real or through an alias), with its properties.
    func resolveItem(at path: ObjectPath) async -> (ItemID, ItemInfo)? {
        let id: ItemID
        switch ObjectPaths.parse(path) {
        case .item(let item)?: id = item
        case .aliasItem(let alias, let number)?:
            guard let collection = await service.readAlias(alias) else { return nil }
            id = ItemID(collection: collection, number: number)
        default: return nil
        }
        guard let info = try? await service.itemInfo(id) else { return nil }
        return (id, info)
    }

    /// The item at `path`; `nil` when nothing lives there.
    func existingItem(at path: ObjectPath) async -> ItemID? {
        await resolveItem(at: path)?.0
    }

    /// The arguments of Lock and Unlock: each path that names something, with what it names; the
    /// paths stay here, as the caller spelled them, to be echoed back (§6.5).
    func references(for paths: [ObjectPath]) async -> [PromptSpellings.Spelled] {
        var spelled: [PromptSpellings.Spelled] = []
        for path in paths {
            if let item = await existingItem(at: path) {
                spelled.append((path, .item(item)))
            } else if let (collection, _) = await resolveCollection(at: path) {
                spelled.append((path, .collection(collection)))
            }
        }
        return spelled
    }

    /// The session a path names. A path that is no session path yields an id no session has,
    /// so the service answers `NoSession` as it would for a closed one.
    func session(at path: ObjectPath) -> SessionID {
        if case .session(let id)? = ObjectPaths.parse(path) { return id }
        return SessionID("")
    }

    /// Reads a `(oayays)` secret; the binding decodes its value into locked memory.
    static func secret(from value: DBusValue) -> TransportSecret? {
        guard let fields = value.fields, fields.count == 4, let session = fields[0].objectPath,
            let parameters = fields[1].bytes, let bytes = fields[2].secret, let contentType = fields[3].string
        else { return nil }
        let id: SessionID
        if case .session(let named)? = ObjectPaths.parse(session) { id = named } else { id = SessionID("") }
        return TransportSecret(session: id, parameters: parameters, value: bytes, contentType: contentType)
    }

    /// Writes a `(oayays)` secret for the caller's session path.
    func value(of secret: TransportSecret) -> DBusValue { Self.value(of: secret) }

    /// Writes a `(oayays)` secret for the caller's session path.
    static func value(of secret: TransportSecret) -> DBusValue {
        .structure([
            .objectPath(ObjectPaths.path(of: secret.session)),
            .bytes(secret.parameters),
            .secret(secret.value),
            .string(secret.contentType),
        ])
    }
}

/// Caller and object access for handlers.
extension MethodCall {
    /// The caller as the service knows it.
    var client: ClientID { ClientID(sender) }

    /// The caller with what the bus could tell about it, for access rules and the audit log.
    var caller: Caller { Caller(context) }

    /// The collection the call's path resolved to.
    func collection() throws -> (CollectionID, CollectionInfo) {
        guard case .collection(let id, let info)? = object as? SecretObject else { throw ServiceError.noSuchObject }
        return (id, info)
    }

    /// The item the call's path resolved to.
    func item() throws -> (ItemID, ItemInfo) {
        guard case .item(let id, let info)? = object as? SecretObject else { throw ServiceError.noSuchObject }
        return (id, info)
    }
}

extension Input {
    /// A `(oayays)` secret, its value decoded into locked memory by the bus thread.
    static func secret(_ name: String) -> Input<TransportSecret> {
        Input<TransportSecret>(name, SecretServiceNames.secretSignature) { BusContext.secret(from: $0) }
    }

    /// An `o` naming a session; a path that is no session path yields an id no session has, so the
    /// service answers `NoSession` as it would for a closed one.
    static func session(_ name: String) -> Input<SessionID> {
        Input<SessionID>(name, "o") { value in
            value.objectPath.map { path in
                if case .session(let id)? = ObjectPaths.parse(path) { id } else { SessionID("") }
            }
        }
    }
}
