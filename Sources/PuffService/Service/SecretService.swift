// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffStore

/// The Secret Service semantics (secret-service.md §4–§9) with no D-Bus in it: collections, items,
/// aliases, sessions, locking and prompts.
///
/// One actor owns all of this state (architecture.md §2.6). The bus layer decodes a call, awaits one
/// method here and turns each ``ServiceEvent`` handed to the `events` sink into signals. The sink is
/// called synchronously from inside the actor, in §7 order, before the method returns, so the bus
/// can send signals ahead of the method reply where gnome-keyring does.
public actor SecretService {
    let backend: any VaultBackend
    let prompter: any Prompter
    let schemaMapper: any SchemaMapper
    let promptTimeout: Duration
    let limits: ServiceLimits
    let clock: any Clock<Duration>
    let now: @Sendable () -> UInt64
    let logger: Logger
    let events: @Sendable (ServiceEvent) -> Void

    /// Every collection, keyed by identifier; ``collectionOrder`` gives the stable order.
    var collectionStates: [CollectionID: CollectionState]
    /// Collections in creation order (loaded ones sorted by creation time); `session` is last.
    var collectionOrder: [CollectionID]
    /// Alias name → collection; an alias may outlive its collection (it then reads as nil).
    var aliases: [String: CollectionID]
    var sessions: [SessionID: Session] = [:]
    var prompts: [PromptID: PendingPrompt] = [:]
    /// Open sessions and waiting prompts per client, for ``ServiceLimits``.
    var sessionCounts: [ClientID: Int] = [:]
    var promptCounts: [ClientID: Int] = [:]
    var nextSessionNumber: UInt64 = 1
    var nextPromptNumber: UInt64 = 1
    /// Serialises mutations that await the backend; see ``beginWrite()``.
    var isWriting = false
    var writeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Loads the vault and makes sure the collections every client expects exist.
    ///
    /// Creates and persists a `login` collection (label `Login`) with aliases `default` and `login`
    /// when the vault has none, and always adds the in-memory `session` collection with alias
    /// `session` (secret-service.md §11). Every collection starts unlocked.
    ///
    /// - Parameters:
    ///   - backend: Where records are persisted.
    ///   - prompter: Who answers unlock prompts.
    ///   - schemaMapper: Classifies items for ``kind(of:)``.
    ///   - promptTimeout: How long a started prompt may run before it is dismissed.
    ///   - limits: What one client may make the service hold.
    ///   - clock: Measures `promptTimeout`; tests pass a manual clock.
    ///   - now: The current time in seconds since the epoch, for `Created`/`Modified`.
    ///   - logger: Receives diagnostics; never secrets or attribute values.
    ///   - events: Receives every ``ServiceEvent``, synchronously.
    /// - Throws: Whatever the backend throws while loading or creating `login`.
    public init(
        backend: any VaultBackend,
        prompter: any Prompter,
        schemaMapper: any SchemaMapper = StandardSchemaMapper(),
        promptTimeout: Duration,
        limits: ServiceLimits = ServiceLimits(),
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> UInt64,
        logger: Logger,
        events: @escaping @Sendable (ServiceEvent) -> Void
    ) async throws {
        var snapshot = try await backend.load()
        if snapshot.collections[CollectionID.login.rawValue] == nil {
            let time = now()
            let login = StoredCollection(id: CollectionID.login.rawValue, label: "Login", created: time, modified: time)
            let changes: [RecordChange] = [
                .putCollection(login),
                .setAlias(name: "default", collection: login.id),
                .setAlias(name: "login", collection: login.id),
            ]
            try await backend.commit(changes)
            try snapshot.apply(changes)
        }
        var states: [CollectionID: CollectionState] = [:]
        for record in snapshot.collections.values where record.id != CollectionID.session.rawValue {
            states[CollectionID(record.id)] = CollectionState(
                record: record, items: snapshot.items[record.id] ?? ItemTable())
        }
        let loadedOrder = states.values.map(\.record)
            .sorted { ($0.created, $0.id) < ($1.created, $1.id) }
            .map { CollectionID($0.id) }
        let session = StoredCollection(id: CollectionID.session.rawValue, label: "", created: 0, modified: 0)
        states[.session] = CollectionState(record: session, items: ItemTable())
        var aliases = Dictionary(uniqueKeysWithValues: snapshot.aliases.map { ($0.key, CollectionID($0.value)) })
        aliases["session"] = .session

        self.backend = backend
        self.prompter = prompter
        self.schemaMapper = schemaMapper
        self.promptTimeout = promptTimeout
        self.limits = limits
        self.clock = clock
        self.now = now
        self.logger = logger
        self.events = events
        self.collectionStates = states
        self.collectionOrder = loadedOrder + [.session]
        self.aliases = aliases
        logger.info(
            "Secret service ready",
            metadata: ["vault.kind": "\(type(of: backend).kind)", "collections": "\(collectionOrder.count)"]
        )
    }

    // MARK: - Shared helpers

    func emit(_ event: ServiceEvent) {
        events(event)
    }

    /// The collection's state, or ``ServiceError/noSuchObject``.
    func state(of collection: CollectionID) throws(ServiceError) -> CollectionState {
        guard let state = collectionStates[collection] else { throw .noSuchObject }
        return state
    }

    /// The item record, or ``ServiceError/noSuchObject``.
    func record(of item: ItemID) throws(ServiceError) -> StoredItem {
        guard let record = collectionStates[item.collection]?.items[item.number] else { throw .noSuchObject }
        return record
    }

    /// The item ids of a collection in creation order; empty for an unknown collection.
    public func itemIDs(in collection: CollectionID) -> [ItemID] {
        collectionStates[collection]?.order.map { ItemID(collection: collection, number: $0) } ?? []
    }

    /// Resolves an `Unlock`/`Lock` target to an existing collection (items act on their collection).
    func collection(for target: ObjectReference.Target?) -> CollectionID? {
        switch target {
        case .collection(let id)?: collectionStates[id] == nil ? nil : id
        case .item(let id)?: collectionStates[id.collection]?.items[id.number] == nil ? nil : id.collection
        case nil: nil
        }
    }

    /// The `Type` a client sees: `xdg:schema` when present, else the stored type (secret-service.md §9.2).
    func reportedType(of record: StoredItem) -> String {
        record.attributeList.value(named: "xdg:schema") ?? record.type
    }

    /// Writes `changes` before anything in memory changes, so a failed write leaves no trace.
    ///
    /// Changes that only touch the in-memory `session` collection are not written.
    func persist(_ changes: [RecordChange], touching collection: CollectionID?) async throws(ServiceError) {
        guard collection != .session, !changes.isEmpty else { return }
        do {
            try await backend.commit(changes)
        } catch {
            logger.error(
                "Vault commit failed",
                metadata: [
                    "vault.kind": "\(type(of: backend).kind)", "error": "\(error)", "changes": "\(changes.count)",
                ]
            )
            throw .failed("the change could not be saved")
        }
    }

    /// Waits until no other mutation is between its checks and its commit.
    ///
    /// The actor is re-entrant: while one call awaits the backend another could pass the same checks
    /// (for example take the same item number). Every mutating call brackets its check–commit–apply
    /// with `beginWrite`/`endWrite`.
    func beginWrite() async {
        if isWriting {
            await withCheckedContinuation { writeWaiters.append($0) }
        } else {
            isWriting = true
        }
    }

    /// How many mutations wait for the write turn (tests use it as an explicit hold point).
    package var writersWaiting: Int { writeWaiters.count }

    /// Hands the write turn to the next waiter, if any.
    func endWrite() {
        if writeWaiters.isEmpty {
            isWriting = false
        } else {
            // The turn passes directly, so `isWriting` stays true.
            writeWaiters.removeFirst().resume()
        }
    }
}
