// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// `Audit` of `io.puff.Control1`: the audit log entries of unlocked collections for
/// `puffctl audit`, never a secret (dbus/io.puff.Control1.xml), a page at a time.
extension SecretInterfaces {
    /// The most entries one page holds, whatever the caller asks.
    static let auditPageEntries = 4096
    /// The most bytes of text one page carries, far below the bus's 4 MiB per message: a page
    /// ends early rather than fail for long labels.
    static let auditPageBytes = 1 << 20

    static func auditMethods(_ context: BusContext) -> [Method] {
        [
            controlMethod(
                .audit, in: .uint64("since"), .string("collection"), .sequences("after"), .uint32("limit")
            ) { call, since, name, after, limit in
                let report = try await context.service.auditEntries(
                    since: since, collection: name.isEmpty ? nil : CollectionID(name))
                guard report.isEnabled else {
                    throw DBusError(.notSupported, "puffd keeps no audit logs: [audit] enabled is false in puffd.toml")
                }
                var unreadable: [String: String] = [:]
                for id in report.locked { unreadable[id.rawValue] = "locked" }
                for problem in report.problems { unreadable[problem.collection.rawValue] = problem.reason }
                let (page, more) = Self.page(
                    report.entries, after: after, limit: limit == 0 ? auditPageEntries : Int(limit))
                let rotated = DBusValue.dictionary(
                    key: "s", value: "t",
                    report.rotatedAway.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                        DBusValue.DictEntry(.string($0.key.rawValue), .uint64($0.value))
                    })
                return [
                    .array(element: "a{sv}", page.map(value)), .stringDictionary(unreadable), rotated, .boolean(more),
                ]
            }
        ]
    }

    /// The entries after the cursor, at most `limit` and about ``auditPageBytes``, and whether
    /// more follow.
    static func page(_ entries: [AuditEntry], after: [String: UInt64], limit: Int) -> ([AuditEntry], Bool) {
        let wanted = entries.filter { $0.sequence > after[$0.collection.rawValue, default: 0] }
        var page: [AuditEntry] = []
        var bytes = 0
        for entry in wanted {
            let size =
                256 + entry.label.utf8.count + (entry.executable?.utf8.count ?? 0) + entry.client.utf8.count
                + (entry.app?.utf8.count ?? 0)
            guard page.count < min(limit, auditPageEntries), page.isEmpty || bytes + size <= auditPageBytes else {
                return (page, true)
            }
            page.append(entry)
            bytes += size
        }
        return (page, false)
    }

    /// One entry as `a{sv}`; `executable`, `pid` and `app` only when known.
    private static func value(of entry: AuditEntry) -> DBusValue {
        var fields: [String: DBusValue] = [
            ControlKey.collection: .string(entry.collection.rawValue), ControlKey.time: .uint64(entry.time),
            ControlKey.action: .string(entry.action.description), ControlKey.result: .string(entry.result.description),
            ControlKey.item: .objectPath(
                ObjectPaths.path(of: ItemID(collection: entry.collection, number: entry.item))),
            ControlKey.label: .string(entry.label), ControlKey.client: .string(entry.client),
            ControlKey.sequence: .uint64(entry.sequence),
        ]
        if let executable = entry.executable { fields[ControlKey.executable] = .string(executable) }
        if let pid = entry.pid { fields[ControlKey.pid] = .uint32(pid) }
        if let app = entry.app { fields[ControlKey.app] = .string(app) }
        return .variantDictionary(fields)
    }
}
