// SPDX-License-Identifier: Apache-2.0
import PuffConcurrency
import PuffDBus
import PuffProtocol
import PuffService

/// `io.puff.Control1.ImportItems` (dbus/io.puff.Control1.xml): `puffctl import`'s items into
/// one collection as one batch, the items over a pipe (``ImportPipe``), never in the message.
extension SecretInterfaces {
    static func importMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        return [
            controlMethod(.importItems, in: .string("collection"), .unixFD("items"), .variantDictionary("options")) {
                call, name, descriptor, options in
                let collection = CollectionID(name)
                let dryRun = options[ControlKey.dryRun]?.bool ?? false
                // Read off the cooperative pool and without a call slot: the batch may be large.
                let items = try await CallSlot.released { () async throws(ServiceError) in
                    try await BlockingWork.run { () throws(ServiceError) in try ImportPipe.read(descriptor) }
                }
                let outcomes = try await service.importItems(
                    items, into: collection, dryRun: dryRun, caller: call.caller,
                    progress: context.progress(of: .importItems, for: call))
                return [.array(element: "a{sv}", outcomes.map(\.controlEntry))]
            }
        ]
    }
}

extension ImportOutcome {
    /// The `a{sv}` `ImportItems` answers with per source item.
    var controlEntry: DBusValue {
        .variantDictionary([
            ControlKey.index: .uint32(UInt32(clamping: index)), ControlKey.outcome: .string(kind.rawValue),
            ControlKey.label: .string(label),
            ControlKey.reason: .string(reason),
            ControlKey.path: .objectPath(item.map(ObjectPaths.path(of:)) ?? ObjectPath.root),
        ])
    }
}
