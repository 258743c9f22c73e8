// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffService

/// What every interface handler needs: the service and the path ↔ id translations that involve
/// live state (aliases resolve at call time, so `SetAlias` takes effect at once).
struct BusContext: Sendable {
    let service: SecretService

    /// The collection at a collection path or an alias path.
    func collection(at path: ObjectPath) async throws -> CollectionID {
        switch ObjectPaths.parse(path) {
        case .collection(let id)?:
            _ = try await service.collectionInfo(id)
            return id
        case .alias(let name)?:
            guard let id = await service.readAlias(name) else { throw ServiceError.noSuchObject }
            return id
        default:
            throw ServiceError.noSuchObject
        }
    }

    /// The item at an item path (real or through an alias); `nil` when nothing lives there.
    func existingItem(at path: ObjectPath) async -> ItemID? {
        let id: ItemID
        switch ObjectPaths.parse(path) {
        case .item(let item)?: id = item
        case .aliasItem(let alias, let number)?:
            guard let collection = await service.readAlias(alias) else { return nil }
            id = ItemID(collection: collection, number: number)
        default: return nil
        }
        return (try? await service.itemInfo(id)) == nil ? nil : id
    }

    /// The item at `path`, or `NoSuchObject`.
    func item(at path: ObjectPath) async throws -> ItemID {
        guard let id = await existingItem(at: path) else { throw ServiceError.noSuchObject }
        return id
    }

    /// A Lock/Unlock argument: what it names, plus the caller's spelling to echo back (§6.5).
    func reference(for path: ObjectPath) async -> ObjectReference {
        if let item = await existingItem(at: path) {
            return ObjectReference(target: .item(item), spelling: path.rawValue)
        }
        if let collection = try? await collection(at: path) {
            return ObjectReference(target: .collection(collection), spelling: path.rawValue)
        }
        return ObjectReference(target: nil, spelling: path.rawValue)
    }

    /// The session a path names. A path that is no session path yields an id no session has,
    /// so the service answers `NoSession` as it would for a closed one.
    func session(at path: ObjectPath) -> SessionID {
        if case .session(let id)? = ObjectPaths.parse(path) { return id }
        return SessionID("")
    }

    /// Reads a `(oayays)` secret.
    func secret(from value: DBusValue?) throws -> TransportSecret {
        guard let fields = value?.fields, fields.count == 4, let session = fields[0].objectPath,
            let parameters = fields[1].bytes, let bytes = fields[2].bytes, let contentType = fields[3].string
        else { throw ServiceError.invalidArgument("a secret must be (oayays)") }
        return TransportSecret(
            session: self.session(at: session),
            parameters: parameters.unprotectedArray(),  // IVs are not secret
            value: bytes,
            contentType: contentType
        )
    }

    /// Writes a `(oayays)` secret for the caller's session path.
    func value(of secret: TransportSecret) -> DBusValue {
        .structure([
            .objectPath(ObjectPaths.path(of: secret.session)),
            .publicBytes(secret.parameters),
            .bytes(secret.value),
            .string(secret.contentType),
        ])
    }
}

/// Argument access for handlers; the router has checked signatures, so a mismatch is a table bug
/// and still becomes `InvalidArgs` rather than a crash.
extension MethodCall {
    func argument<T>(_ index: Int, _ view: (DBusValue) -> T?) throws -> T {
        guard index < arguments.count, let value = view(arguments[index]) else {
            throw ServiceError.invalidArgument("argument \(index) has the wrong type")
        }
        return value
    }

    /// The caller as the service knows it.
    var client: ClientID { ClientID(sender) }
}
