// SPDX-License-Identifier: Apache-2.0
import PuffProtocol

/// A deleted collection as `DeleteCollection` and `DeletedCollections` describe it.
public struct DeletedCollectionSummary: Sendable, Equatable {
    /// Its id; `""` for a hidden collection, whose name is sealed.
    public var id: String
    /// Its label when it was open as it was deleted, else `""`.
    public var label: String
    public var itemCount: UInt32
    /// Seconds since the epoch.
    public var deletedAt: UInt64
    /// What `collection restore` takes to name this one exactly.
    public var name: String
    /// How many days puffd keeps it (only in `DeleteCollection`'s answer; else nil).
    public var keptDays: UInt32?

    init(_ fields: ReplyFields) throws(ClientError) {
        id = try fields.string(ControlKey.id) ?? ""
        label = try fields.string(ControlKey.label) ?? ""
        itemCount = try fields.uint32(ControlKey.items) ?? 0
        deletedAt = try fields.uint64(ControlKey.deletedAt) ?? 0
        name = try fields.string(ControlKey.name) ?? ""
        keptDays = try fields.uint32(ControlKey.keptDays)
    }

    /// "'login' (“Login”, 3 items)", or "a hidden collection (3 items)".
    var described: String {
        let items = "\(itemCount) item\(itemCount == 1 ? "" : "s")"
        guard !id.isEmpty else { return "a hidden collection (\(items))" }
        return label.isEmpty || label == id ? "'\(id)' (\(items))" : "'\(id)' (“\(label)”, \(items))"
    }
}
