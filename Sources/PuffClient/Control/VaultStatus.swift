// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

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
        isInitialized = try fields.bool("initialized") ?? false
        store = try fields.string("store") ?? ""
        dataDirectory = try fields.string("data_dir") ?? ""
        version = try fields.string("version") ?? ""
        prompter = try fields.string("prompter")
        problems = try fields.array("problems")?.compactMap(\.string) ?? []
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
        guard let id = try fields.string("id") else { throw .unexpectedReply(member: fields.member) }
        self.id = id
        label = try fields.string("label") ?? id
        isLocked = try fields.bool("locked") ?? true
        itemCount = try fields.uint32("items") ?? 0
        isPrivate = try fields.bool("private") ?? false
        isHidden = try fields.bool("hidden") ?? false
        isDefault = try fields.bool("default") ?? false
        damage = try fields.string("damaged") ?? ""
        store = try fields.string("store") ?? ""
        policy = try fields.string("policy")
        minimumLength = try fields.uint32("min_length")
        policyText = try fields.string("policy_text")
        lockedSearch = try fields.string("locked_search") ?? ""
        indexKey = try fields.string("index_key") ?? ""
        searchWaitsForUnlock = try fields.bool("search_waits_for_unlock") ?? false
    }
}

extension VaultStatus: Encodable {
    private enum Keys: String, CodingKey {
        case vault, collections
        case initialized, store
        case dataDirectory = "data_dir"
        case version, prompter, problems
    }

    /// Encodes as `{"vault": {...}, "collections": [...]}`, the shape of the `Status` reply.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var vault = container.nestedContainer(keyedBy: Keys.self, forKey: .vault)
        try vault.encode(isInitialized, forKey: .initialized)
        try vault.encode(store, forKey: .store)
        try vault.encode(dataDirectory, forKey: .dataDirectory)
        try vault.encode(version, forKey: .version)
        try vault.encodeIfPresent(prompter, forKey: .prompter)
        if !problems.isEmpty { try vault.encode(problems, forKey: .problems) }
        try container.encode(collections, forKey: .collections)
    }
}

/// Encodes with the key names of the `Status` reply.
extension CollectionStatus: Encodable {
    private enum CodingKeys: String, CodingKey {
        case id, label, store
        case isLocked = "locked"
        case itemCount = "items"
        case isPrivate = "private"
        case isHidden = "hidden"
        case isDefault = "default"
        case damage = "damaged"
        case policy
        case minimumLength = "min_length"
        case policyText = "policy_text"
        case lockedSearch = "locked_search"
        case indexKey = "index_key"
        case searchWaitsForUnlock = "search_waits_for_unlock"
    }
}
