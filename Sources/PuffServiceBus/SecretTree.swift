// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// Tells the router which Secret Service objects exist right now and what each implements,
/// resolving a path to a ``SecretObject`` once per call.
struct SecretTree: ObjectTree {
    let context: BusContext
    let interfaces: SecretInterfaces

    func resolve(_ path: ObjectPath, context call: CallContext) async -> ResolvedObject? {
        let service = context.service
        if path == PortalNames.path {
            return ResolvedObject(interfaces: [interfaces.portal], object: SecretObject.portal)
        }
        if path.rawValue.hasPrefix(PortalRequests.handlePrefix), context.portal.requests.owner(of: path) != nil {
            return ResolvedObject(interfaces: [interfaces.portalRequest], object: SecretObject.portalRequest)
        }
        switch ObjectPaths.parse(path) {
        case .service?:
            return ResolvedObject(
                interfaces: [interfaces.service, interfaces.gnomeKeyring], object: SecretObject.service)
        case .collection?, .alias?:
            guard let (id, info) = await context.resolveCollection(at: path) else { return nil }
            return ResolvedObject(interfaces: [interfaces.collection], object: SecretObject.collection(id, info))
        case .item?, .aliasItem?:
            guard let (id, info) = await context.resolveItem(at: path) else { return nil }
            return ResolvedObject(interfaces: [interfaces.item], object: SecretObject.item(id, info))
        case .session(let id)?:
            guard await service.hasSession(id) else { return nil }
            return ResolvedObject(interfaces: [interfaces.session], object: SecretObject.session(id))
        case .prompt(let id)?:
            guard await service.hasPrompt(id) else { return nil }
            return ResolvedObject(interfaces: [interfaces.prompt], object: SecretObject.prompt(id))
        case .node?, nil:
            return nil
        }
    }

    /// `NoSuchObject` below `/org/freedesktop/secrets`: Debian 12's secretstorage (3.3.3) treats
    /// only that and `UnknownMethod` as "does not exist", not libdbus's `UnknownObject`. On a vault
    /// with no passcode yet its message says how to set one (libsecret prints it).
    func missingObjectError(at path: ObjectPath) async -> DBusError {
        guard path == SecretServiceNames.servicePath || path.isDescendant(of: SecretServiceNames.servicePath) else {
            return DBusError(.unknownObject, "no object at \(path)")
        }
        return DBusErrorMapping.missingObject(vaultInitialized: await context.service.isInitialized)
    }

    func children(of path: ObjectPath, context call: CallContext) async -> [String] {
        switch path.rawValue {
        case "/": return ["org"]
        case "/org": return ["freedesktop"]
        case "/org/freedesktop": return ["portal", "secrets"]
        case "/org/freedesktop/portal": return ["desktop"]
        case SecretServiceNames.servicePath.rawValue: return ["collection"]
        default: break
        }
        switch ObjectPaths.parse(path) {
        case .node? where path.elements.last == "collection":
            return await context.service.collections.map { ObjectPaths.encode($0.rawValue) }
        case .collection(let id)?:
            return await context.service.itemIDs(in: id).map { String($0.number) }
        default:
            return []
        }
    }
}
