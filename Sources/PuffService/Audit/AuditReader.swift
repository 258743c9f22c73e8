// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// Opens one collection's audit log, off the service actor, and checks that its entries are
/// where they were written: each opens under the collection's key, space and position, and the
/// positions only go up. What does not hold is counted and reported, never shown.
enum AuditReader {
    /// The entries of `space`'s log made at or after `since`, and what was wrong with the log.
    static func read(
        _ store: any AuditStore, space: SpaceID, sealer: SecretSealer, collection: CollectionID, since: UInt64
    ) -> (entries: [AuditEntry], problem: String?, rotatedAway: UInt64) {
        let replay: AuditReplay
        do {
            replay = try store.entries(of: space)
        } catch {
            return ([], "\(error)", 0)
        }
        var first: UInt64?
        var entries: [AuditEntry] = []
        var unopened = 0
        var outOfOrder = 0
        var missing: UInt64 = 0
        var last: UInt64?
        for bytes in replay.records {
            guard let record = try? AuditRecord(decoding: bytes),
                let fields = record.open(space: space, sealer: sealer),
                let action = AuditAction(rawValue: fields.action), let result = AuditResult(rawValue: fields.result)
            else {
                unopened += 1
                continue
            }
            if let last {
                // Reordered entries, or entries brought back from elsewhere in this log.
                guard record.sequence > last else {
                    outOfOrder += 1
                    continue
                }
                missing += record.sequence - last - 1
            }
            last = record.sequence
            if first == nil { first = record.sequence }
            guard fields.time >= since else { continue }
            entries.append(
                AuditEntry(
                    collection: collection, time: fields.time, action: action, result: result, item: fields.item,
                    label: fields.label, executable: fields.executable.isEmpty ? nil : fields.executable,
                    client: fields.client, pid: fields.pid == 0 ? nil : fields.pid,
                    app: fields.app.isEmpty ? nil : fields.app, sequence: record.sequence))
        }
        var problems: [String] = replay.damage.map { [$0] } ?? []
        if unopened > 0 { problems.append("\(unopened) entries do not open under this collection's key") }
        if outOfOrder > 0 { problems.append("\(outOfOrder) entries are out of order") }
        if missing > 0 { problems.append("\(missing) entries are missing") }
        // Rotation drops the oldest file whole; the first kept entry's number says how much went.
        return (entries, problems.isEmpty ? nil : problems.joined(separator: "; "), (first ?? 1) - 1)
    }
}
