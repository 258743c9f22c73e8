// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// Tells the router which Secret Service objects exist right now and what each implements.
struct SecretTree: ObjectTree {
    let context: BusContext
    let interfaces: SecretInterfaces

    func interfaces(at path: ObjectPath, caller: String) async -> [Interface]? {
        let service = context.service
        switch ObjectPaths.parse(path) {
        case .service?:
            return [interfaces.service]
        case .collection?, .alias?:
            return (try? await context.collection(at: path)) == nil ? nil : [interfaces.collection]
        case .item?, .aliasItem?:
            return await context.existingItem(at: path) == nil ? nil : [interfaces.item]
        case .session(let id)?:
            return await service.hasSession(id) ? [interfaces.session] : nil
        case .prompt(let id)?:
            return await service.hasPrompt(id) ? [interfaces.prompt] : nil
        case .node?, nil:
            return nil
        }
    }

    /// `NoSuchObject` below `/org/freedesktop/secrets`: Debian 12's secretstorage (3.3.3) treats
    /// only that and `UnknownMethod` as "does not exist", not libdbus's `UnknownObject`.
    func missingObjectError(at path: ObjectPath) -> DBusError {
        guard path == SecretServiceNames.servicePath || path.isDescendant(of: SecretServiceNames.servicePath) else {
            return DBusError(.unknownObject, "no object at \(path)")
        }
        return DBusError(.noSuchObject, "no such object")
    }

    func children(of path: ObjectPath, caller: String) async -> [String] {
        switch path.rawValue {
        case "/": return ["org"]
        case "/org": return ["freedesktop"]
        case "/org/freedesktop": return ["secrets"]
        case SecretServiceNames.servicePath.rawValue: return ["collection"]
        default: break
        }
        switch ObjectPaths.parse(path) {
        case .node? where path.elements.last == "collection":
            return await context.service.collections.map { ObjectPaths.encode($0.rawValue) }
        case .collection(let id)?:
            let items = (try? await context.service.collectionInfo(id).items) ?? []
            return items.map { String($0.number) }
        default:
            return []
        }
    }
}
