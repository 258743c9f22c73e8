// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// The item methods of `io.puff.Control1` that the Secret Service has no call for
/// (dbus/io.puff.Control1.xml): moving an item between collections, for `puffctl mv`.
extension SecretInterfaces {
    static func itemMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        return [
            controlMethod(.moveItem, in: .objectPath("item"), .string("collection")) { call, path, name in
                let item = try await context.controlItem(path)
                let target = CollectionID(name)
                // Named before the move, so a missing target answers NoSuchCollection.
                guard await service.collections.contains(target) else { throw ServiceError.noSuchObject }
                let moved = try await service.moveItem(item, to: target, caller: call.caller)
                return [.objectPath(ObjectPaths.path(of: moved))]
            }
        ]
    }
}
