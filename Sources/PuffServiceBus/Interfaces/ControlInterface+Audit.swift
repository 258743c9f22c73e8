// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// `Audit` of `io.puff.Control1`: the audit log entries of unlocked collections for
/// `puffctl audit`, never a secret (dbus/io.puff.Control1.xml).
extension SecretInterfaces {
    static func auditMethods(_ context: BusContext) -> [Method] {
        [
            controlMethod(
                "Audit", in: [.init("since", "t"), .init("collection", "s")],
                out: [.init("entries", "aa{sv}"), .init("unreadable", "a{ss}")]
            ) { call in
                guard case .uint64(let since)? = call.arguments.first else {
                    throw ServiceError.invalidArgument("since must be t")
                }
                let name = try call.argument(1, \.string)
                let report = try await context.service.auditEntries(
                    since: since, collection: name.isEmpty ? nil : CollectionID(name))
                guard report.isEnabled else {
                    throw DBusError(.notSupported, "puffd keeps no audit logs: [audit] enabled is false in puffd.toml")
                }
                var unreadable: [String: String] = [:]
                for id in report.locked { unreadable[id.rawValue] = "locked" }
                for problem in report.problems { unreadable[problem.collection.rawValue] = problem.reason }
                return [.array(element: "a{sv}", report.entries.map(value)), .stringDictionary(unreadable)]
            }
        ]
    }

    /// One entry as `a{sv}`; `executable` and `pid` only when known.
    private static func value(of entry: AuditEntry) -> DBusValue {
        var fields: [String: DBusValue] = [
            "collection": .string(entry.collection.rawValue), "time": .uint64(entry.time),
            "action": .string(entry.action.description), "result": .string(entry.result.description),
            "item": .objectPath(ObjectPaths.path(of: ItemID(collection: entry.collection, number: entry.item))),
            "label": .string(entry.label), "client": .string(entry.client),
        ]
        if let executable = entry.executable { fields["executable"] = .string(executable) }
        if let pid = entry.pid { fields["pid"] = .uint32(pid) }
        return .variantDictionary(fields)
    }
}
