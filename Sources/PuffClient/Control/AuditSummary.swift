// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

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

    /// Creates a summary from its parts.
    public init(
        collection: String, time: UInt64, action: String, result: String, item: String, label: String,
        executable: String? = nil, client: String, pid: UInt32? = nil
    ) {
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

    /// Who asked, for people: the executable, else the bus name.
    public var caller: String { executable ?? client }
}

/// What `Audit` answered: entries, and the collections whose logs were not (all) read and why.
public struct AuditLogReply: Sendable, Equatable {
    public var entries: [AuditSummary]
    /// Collection id → `"locked"`, or what was wrong with its log.
    public var unreadable: [String: String]

    /// Decodes the `aa{sv}a{ss}` reply body of `Audit`.
    ///
    /// - Throws: ``ClientError/unexpectedReply(member:)`` when the body has another shape.
    public init(reply arguments: [DBusValue]) throws(ClientError) {
        guard arguments.count == 2, case .array(_, let values) = arguments[0],
            let unreadable = arguments[1].stringDictionary
        else { throw .unexpectedReply(member: "Audit") }
        var entries: [AuditSummary] = []
        entries.reserveCapacity(values.count)
        for value in values {
            guard let dictionary = value.variantDictionary else { throw .unexpectedReply(member: "Audit") }
            let fields = ReplyFields(dictionary, member: "Audit")
            guard let collection = try fields.string("collection"), let time = try fields.uint64("time"),
                let action = try fields.string("action"), let result = try fields.string("result"),
                let item = try fields.objectPath("item"), let label = try fields.string("label"),
                let client = try fields.string("client")
            else { throw .unexpectedReply(member: "Audit") }
            entries.append(
                AuditSummary(
                    collection: collection, time: time, action: action, result: result, item: item, label: label,
                    executable: try fields.string("executable"), client: client, pid: try fields.uint32("pid")))
        }
        self.entries = entries
        self.unreadable = unreadable
    }
}

extension ControlClient {
    /// `Audit`: the entries made at or after `since` (seconds since the epoch) in `collection`,
    /// or with `""` in every unlocked collection.
    public func audit(since: UInt64, collection: String) async throws(ClientError) -> AuditLogReply {
        try AuditLogReply(
            reply: await call(
                "Audit", [.uint64(since), .string(collection)], expecting: "aa{sv}a{ss}",
                collection: collection.isEmpty ? nil : collection))
    }
}
