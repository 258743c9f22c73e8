// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// One audit log entry as `Audit` describes it: never a secret, never an attribute value.
public struct AuditSummary: Sendable, Equatable, Encodable {
    public var collection: String
    /// Seconds since the Unix epoch.
    public var time: UInt64
    /// `read`, `create`, `replace`, `change-secret`, `change-attributes`, `change-label`,
    /// `change-type` or `delete`.
    public var action: String
    /// `allowed`, `refused`, `dismissed` or `failed`.
    public var result: String
    /// The item's object path.
    public var item: String
    /// The item's label when the entry was made.
    public var label: String
    /// The caller's executable, when puffd could tell.
    public var executable: String?
    /// The caller's unique bus name.
    public var client: String
    public var pid: UInt32?
    /// A sandboxed caller's Flatpak app id, when it was one.
    public var app: String?
    /// The entry's number in its collection's log.
    public var sequence: UInt64

    /// Creates a summary from its parts.
    public init(
        collection: String, time: UInt64, action: String, result: String, item: String, label: String,
        executable: String? = nil, client: String, pid: UInt32? = nil, app: String? = nil, sequence: UInt64 = 0
    ) {
        self.sequence = sequence
        self.app = app
        self.collection = collection
        self.time = time
        self.action = action
        self.result = result
        self.item = item
        self.label = label
        self.executable = executable
        self.client = client
        self.pid = pid
    }

    /// Who asked, for people: the app and what carried its call
    /// (`org.example.App (via /usr/bin/xdg-dbus-proxy)`), else the executable, else the bus name.
    public var caller: String {
        guard let app else { return executable ?? client }
        return "\(app) (via \(executable ?? client))"
    }
}

/// What `Audit` answered: entries, and the collections whose logs were not (all) read and why.
public struct AuditLogReply: Sendable, Equatable {
    public var entries: [AuditSummary]
    /// Collection id → `"locked"`, or what was wrong with its log.
    public var unreadable: [String: String]
    /// Collection id → how many of its oldest entries rotation dropped.
    public var rotated: [String: UInt64]
    /// Whether entries follow this page.
    public var more: Bool

    /// Decodes the `aa{sv}a{ss}a{st}b` reply body of `Audit`.
    ///
    /// - Throws: ``ClientError/unexpectedReply(member:)`` when the body has another shape.
    public init(reply arguments: [DBusValue]) throws(ClientError) {
        guard arguments.count == 4, case .array(_, let values) = arguments[0],
            let unreadable = arguments[1].stringDictionary, case .dictionary(_, _, let rotatedEntries) = arguments[2],
            let more = arguments[3].bool
        else { throw .unexpectedReply(member: "Audit") }
        var rotated: [String: UInt64] = [:]
        for entry in rotatedEntries {
            guard let key = entry.key.string, case .uint64(let count) = entry.value else {
                throw .unexpectedReply(member: "Audit")
            }
            rotated[key] = count
        }
        self.rotated = rotated
        self.more = more
        var entries: [AuditSummary] = []
        entries.reserveCapacity(values.count)
        for value in values {
            guard let dictionary = value.variantDictionary else { throw .unexpectedReply(member: "Audit") }
            let fields = ReplyFields(dictionary, member: "Audit")
            guard let collection = try fields.string(ControlKey.collection),
                let time = try fields.uint64(ControlKey.time),
                let action = try fields.string(ControlKey.action), let result = try fields.string(ControlKey.result),
                let item = try fields.objectPath(ControlKey.item), let label = try fields.string(ControlKey.label),
                let client = try fields.string(ControlKey.client)
            else { throw .unexpectedReply(member: "Audit") }
            entries.append(
                AuditSummary(
                    collection: collection, time: time, action: action, result: result, item: item, label: label,
                    executable: try fields.string(ControlKey.executable), client: client,
                    pid: try fields.uint32(ControlKey.pid), app: try fields.string(ControlKey.app),
                    sequence: try fields.uint64(ControlKey.sequence) ?? 0))
        }
        self.entries = entries
        self.unreadable = unreadable
    }
}

extension ControlClient {
    /// `Audit`: the entries made at or after `since` (seconds since the epoch) in `collection`,
    /// or with `""` in every unlocked collection, fetched page by page (each page goes on after
    /// the last entry of each collection the pages before brought).
    public func audit(since: UInt64, collection: String, pageSize: UInt32 = 0) async throws(ClientError)
        -> AuditLogReply
    {
        var after: [String: UInt64] = [:]
        var entries: [AuditSummary] = []
        while true {
            let cursor = DBusValue.dictionary(
                key: "s", value: "t",
                after.sorted { $0.key < $1.key }.map { DBusValue.DictEntry(.string($0.key), .uint64($0.value)) })
            var page = try AuditLogReply(
                reply: await call(
                    .audit, [.uint64(since), .string(collection), cursor, .uint32(pageSize)],
                    collection: collection.isEmpty ? nil : collection))
            for entry in page.entries { after[entry.collection] = max(after[entry.collection] ?? 0, entry.sequence) }
            entries += page.entries
            // A page that brought nothing cannot move the cursor: stop rather than ask again.
            if !page.more || page.entries.isEmpty {
                page.entries = entries
                page.more = false
                return page
            }
        }
    }
}
