// SPDX-License-Identifier: Apache-2.0
import PuffConcurrency
import PuffDBus
import PuffFormats
import PuffProtocol
import PuffService

/// `io.puff.Control1.ExportItems` (dbus/io.puff.Control1.xml): one collection's items for
/// `puffctl export`, over a pipe (``ExportPipe``), never in the message; the person agrees first
/// and the access gate decides per item.
extension SecretInterfaces {
    static func exportMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        return [
            controlMethod(.exportItems, in: .string("collection"), .unixFD("items"), .variantDictionary("options")) {
                call, name, descriptor, options in
                let collection = CollectionID(name)
                try ExportPipe.check(descriptor)
                let consent = try await call.consent(options)
                let result = try await service.exportItems(
                    of: collection, consent: consent, caller: call.caller,
                    progress: context.progress(of: .exportItems, for: call))
                let items = result.collection.items
                // Written off the cooperative pool and without a call slot: the reader sets the pace.
                try await CallSlot.released { () async throws(ServiceError) in
                    try await BlockingWork.run { () throws(ServiceError) in
                        try ExportPipe.write(items, to: descriptor)
                    }
                }
                let summary: [String: DBusValue] = [
                    ControlKey.label: .string(result.collection.label),
                    ControlKey.created: .uint64(result.collection.created ?? 0),
                    ControlKey.modified: .uint64(result.collection.modified ?? 0),
                    ControlKey.items: .uint32(UInt32(clamping: items.count)),
                ]
                return [
                    .variantDictionary(summary),
                    .array(element: "a{sv}", result.leftOut.map(\.controlEntry)),
                ]
            }
        ]
    }
}

extension ExportResult.LeftOut {
    /// The `a{sv}` `ExportItems` answers with per item left out.
    var controlEntry: DBusValue {
        .variantDictionary([
            ControlKey.path: .objectPath(ObjectPaths.path(of: item)), ControlKey.label: .string(label),
            ControlKey.reason: .string(reason),
        ])
    }
}
