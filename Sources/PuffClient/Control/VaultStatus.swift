// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// The answer to `Status`: the vault and its visible collections, in the daemon's order.
public struct VaultStatus: Sendable, Equatable {
    /// Whether `Init` has run (the `login` collection exists).
    public var isInitialized: Bool
    /// The store kind, `"file"` or `"memory"`.
    public var store: String
    /// Where the daemon keeps its files.
    public var dataDirectory: String
    /// The daemon's version.
    public var version: String
    /// Who would answer an unlock prompt right now (`agent`, `pinentry`, `none`); nil from a
    /// puffd too old to say.
    public var prompter: String?
    /// Every visible collection; hidden ones appear only while open.
    public var collections: [CollectionStatus]
    /// What is wrong with the vault beside its collections (a damaged catalog, a vault file that
    /// is not a regular file), each naming the file and why; empty from a puffd too old to say.
    public var problems: [String] = []

    /// Creates a status from its parts.
    public init(
        isInitialized: Bool, store: String, dataDirectory: String, version: String, prompter: String? = nil,
        collections: [CollectionStatus]
    ) {
        self.isInitialized = isInitialized
        self.store = store
        self.dataDirectory = dataDirectory
        self.version = version
        self.prompter = prompter
        self.collections = collections
        self.problems = []
    }

    /// Decodes the `(a{sv}aa{sv})` reply body. Missing keys take neutral defaults, so a newer
    /// daemon that drops one still works; a key of the wrong type is an error.
    ///
    /// - Throws: ``ClientError/unexpectedReply(member:)`` when the body has another shape.
    public init(reply arguments: [DBusValue]) throws(ClientError) {
        let bad = ClientError.unexpectedReply(member: "Status")
        guard arguments.count == 2, let vault = arguments[0].variantDictionary,
            case .array(_, let entries) = arguments[1]
        else { throw bad }
        let fields = ReplyFields(vault, member: "Status")
        isInitialized = try fields.bool(ControlKey.initialized) ?? false
        store = try fields.string(ControlKey.store) ?? ""
        dataDirectory = try fields.string(ControlKey.dataDirectory) ?? ""
        version = try fields.string(ControlKey.version) ?? ""
        prompter = try fields.string(ControlKey.prompter)
        problems = try fields.array(ControlKey.problems)?.compactMap(\.string) ?? []
        var collections: [CollectionStatus] = []
        for entry in entries {
            guard let dictionary = entry.variantDictionary else { throw bad }
            collections.append(try CollectionStatus(ReplyFields(dictionary, member: "Status")))
        }
        self.collections = collections
    }

    /// The collection the `default` alias points at, if any.
    public var defaultCollection: CollectionStatus? {
        collections.first(where: \.isDefault)
    }

    /// The collection with `id`, if it is visible.
    public func collection(_ id: String) -> CollectionStatus? {
        collections.first { $0.id == id }
    }
}

/// One collection as `Status` describes it.
public struct CollectionStatus: Sendable, Equatable {
    /// The id used in object paths and in every control call.
    public var id: String
    /// The display name.
    public var label: String
    /// Whether the collection is locked.
    public var isLocked: Bool
    /// The number of items.
    public var itemCount: UInt32
    /// Whether the collection has a passcode of its own, apart from `login`'s.
    public var isPrivate: Bool
    /// Whether the collection is listed only while open (implies private).
    public var isHidden: Bool
    /// Whether the `default` alias points here.
    public var isDefault: Bool
    /// Why the collection's files failed to open; empty when they are fine.
    public var damage: String
    /// The store kind holding it.
    public var store: String
    /// The passcode policy's name (`digits6`, ...); nil when puffd did not say (a damaged collection).
    public var policy: String?
    /// The policy's minimum length; for `digits4` and `digits6`, their only length.
    public var minimumLength: UInt32?
    /// What a passcode needs, for people: "6 digits", "at least 8 characters".
    public var policyText: String?
    /// `always`, `after-unlock` or `never`: whether its items are found while it is locked;
    /// `""` when puffd did not say.
    public var lockedSearch: String = ""
    /// Where an `always` collection's index key lives: `clear` (in its header), `tpm2` (sealed by
    /// this machine's TPM); `""` for the other modes, or when puffd did not say.
    public var indexKey: String = ""
    /// Whether the TPM did not unseal its index key at start: until it is unlocked, search finds
    /// none of its items while it is locked.
    public var searchWaitsForUnlock = false
    /// For a fleet collection, its name in the shared store (``store`` names the store) and how
    /// that store answered last; nil for a collection of this machine alone, or from a puffd too
    /// old to say.
    public var shared: SharedStatus?

    /// Creates a collection status from its parts.
    public init(
        id: String, label: String, isLocked: Bool, itemCount: UInt32, isPrivate: Bool = false,
        isHidden: Bool = false, isDefault: Bool = false, damage: String = "", store: String = "file",
        policy: String? = nil, minimumLength: UInt32? = nil, policyText: String? = nil
    ) {
        self.id = id
        self.label = label
        self.isLocked = isLocked
        self.itemCount = itemCount
        self.isPrivate = isPrivate
        self.isHidden = isHidden
        self.isDefault = isDefault
        self.damage = damage
        self.store = store
        self.policy = policy
        self.minimumLength = minimumLength
        self.policyText = policyText
    }

    /// Decodes one collection entry of `Status`; only `id` is required.
    init(_ fields: ReplyFields) throws(ClientError) {
        guard let id = try fields.string(ControlKey.id) else { throw .unexpectedReply(member: fields.member) }
        self.id = id
        label = try fields.string(ControlKey.label) ?? id
        isLocked = try fields.bool(ControlKey.locked) ?? true
        itemCount = try fields.uint32(ControlKey.items) ?? 0
        isPrivate = try fields.bool(ControlKey.isPrivate) ?? false
        isHidden = try fields.bool(ControlKey.hidden) ?? false
        isDefault = try fields.bool(ControlKey.isDefault) ?? false
        damage = try fields.string(ControlKey.damaged) ?? ""
        store = try fields.string(ControlKey.store) ?? ""
        policy = try fields.string(ControlKey.policy)
        minimumLength = try fields.uint32(ControlKey.minimumLength)
        policyText = try fields.string(ControlKey.policyText)
        lockedSearch = try fields.string(ControlKey.lockedSearch) ?? ""
        indexKey = try fields.string(ControlKey.indexKey) ?? ""
        searchWaitsForUnlock = try fields.bool(ControlKey.searchWaitsForUnlock) ?? false
        if let name = try fields.string(ControlKey.sharedName) {
            shared = SharedStatus(
                name: name, online: try fields.bool(ControlKey.online),
                checkedAt: try fields.uint64(ControlKey.checkedAt) ?? 0,
                reachedAt: try fields.uint64(ControlKey.reachedAt) ?? 0,
                reason: try fields.string(ControlKey.offlineReason) ?? "")
        }
    }
}

/// How a fleet collection's shared store answered puffd (docs/fleet.md, "Working with it").
public struct SharedStatus: Sendable, Equatable {
    /// The collection's name in the shared store.
    public var name: String
    /// Whether the last pull or append reached the store; nil before the first.
    public var online: Bool?
    /// When the last pull or append was tried, seconds since the epoch; 0 before the first.
    public var checkedAt: UInt64
    /// When the store last answered, seconds since the epoch; 0 when not since puffd started.
    public var reachedAt: UInt64
    /// Why the last one did not reach it (the address and the answer); empty when it did.
    public var reason: String

    public init(name: String, online: Bool?, checkedAt: UInt64, reachedAt: UInt64, reason: String) {
        self.name = name
        self.online = online
        self.checkedAt = checkedAt
        self.reachedAt = reachedAt
        self.reason = reason
    }
}

extension VaultStatus: Encodable {
    /// Encodes as `{"vault": {...}, "collections": [...]}`, the shape of the `Status` reply, with
    /// its keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        var vault = container.nestedContainer(keyedBy: ContractKey.self, forKey: ContractKey("vault"))
        try vault.encode(isInitialized, forKey: ContractKey(ControlKey.initialized))
        try vault.encode(store, forKey: ContractKey(ControlKey.store))
        try vault.encode(dataDirectory, forKey: ContractKey(ControlKey.dataDirectory))
        try vault.encode(version, forKey: ContractKey(ControlKey.version))
        try vault.encodeIfPresent(prompter, forKey: ContractKey(ControlKey.prompter))
        if !problems.isEmpty { try vault.encode(problems, forKey: ContractKey(ControlKey.problems)) }
        try container.encode(collections, forKey: ContractKey("collections"))
    }
}

/// Encodes with the key names of the `Status` reply.
extension CollectionStatus: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        try container.encode(id, forKey: ContractKey(ControlKey.id))
        try container.encode(label, forKey: ContractKey(ControlKey.label))
        try container.encode(isLocked, forKey: ContractKey(ControlKey.locked))
        try container.encode(itemCount, forKey: ContractKey(ControlKey.items))
        try container.encode(isPrivate, forKey: ContractKey(ControlKey.isPrivate))
        try container.encode(isHidden, forKey: ContractKey(ControlKey.hidden))
        try container.encode(isDefault, forKey: ContractKey(ControlKey.isDefault))
        try container.encode(damage, forKey: ContractKey(ControlKey.damaged))
        try container.encode(store, forKey: ContractKey(ControlKey.store))
        try container.encodeIfPresent(policy, forKey: ContractKey(ControlKey.policy))
        try container.encodeIfPresent(minimumLength, forKey: ContractKey(ControlKey.minimumLength))
        try container.encodeIfPresent(policyText, forKey: ContractKey(ControlKey.policyText))
        try container.encode(lockedSearch, forKey: ContractKey(ControlKey.lockedSearch))
        try container.encode(indexKey, forKey: ContractKey(ControlKey.indexKey))
        try container.encode(searchWaitsForUnlock, forKey: ContractKey(ControlKey.searchWaitsForUnlock))
        if let shared {
            try container.encode(shared.name, forKey: ContractKey(ControlKey.sharedName))
            try container.encodeIfPresent(shared.online, forKey: ContractKey(ControlKey.online))
            try container.encode(shared.checkedAt, forKey: ContractKey(ControlKey.checkedAt))
            try container.encode(shared.reachedAt, forKey: ContractKey(ControlKey.reachedAt))
            try container.encode(shared.reason, forKey: ContractKey(ControlKey.offlineReason))
        }
    }
}
