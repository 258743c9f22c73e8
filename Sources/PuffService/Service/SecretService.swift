// SPDX-License-Identifier: Apache-2.0
import DequeModule
import Dispatch
public import Logging
import PuffCrypto
public import PuffStore

/// The Secret Service semantics (secret-service.md §4–§9) with no D-Bus in it: collections, items,
/// aliases, sessions, locking and prompts.
///
/// One actor owns all of this state (architecture.md §2.6). The bus layer decodes a call, awaits one
/// method here and turns each ``ServiceEvent`` handed to the `events` sink into signals. The sink is
/// called synchronously from inside the actor, in §7 order, before the method returns, so the bus
/// can send signals ahead of the method reply where gnome-keyring does.
public actor SecretService {
    let store: any RecordStore
    let mode: VaultMode
    let prompter: any Prompter
    let itemRules: ItemRules
    let promptTimeout: Duration
    let limits: ServiceLimits
    let clock: any Clock<Duration>
    /// ``clock`` as time since start, for the auto-lock deadlines.
    let timeline: Timeline
    let autoLock: AutoLockSettings
    /// Where unlocked collections' keys outlive the process (the kernel keyring), if anywhere.
    let keyKeeper: (any UnlockedKeyKeeper)?
    /// Seals and unseals tpm2 slots' keys; nil: tpm2 slots are refused as unavailable.
    let tpm: (any TPMSealing)?
    /// Enrols and asks FIDO2 security keys for fido2 slots; nil: those slots are refused.
    let securityKeys: (any SecurityKeys)?
    /// Wraps and unwraps transit slots' keys with OpenBao; nil: transit slots are refused.
    let transit: (any TransitSealing)?
    /// The collections' audit logs; nil when none are kept.
    let auditLog: AuditLog?
    /// Who may read secrets, with the callers' executables' digests.
    let access: AccessGate
    /// How many days a deleted collection is kept sealed before it is purged.
    public nonisolated let keepDeletedDays: Int
    /// How many automatic snapshots `<vault>/snapshots/` keeps (`[backup] keep`); 0 takes none.
    public nonisolated let keepSnapshots: Int
    /// Whether `OpenSession("plain")` is served (`[sessions] allow_plain`).
    let allowsPlainSessions: Bool
    let now: @Sendable () -> UInt64
    let logger: Logger
    let events: @Sendable (ServiceEvent) -> Void

    /// What reads on the bus thread see (``ReadView``); the actor publishes it as it changes.
    public nonisolated let readView: ReadView
    /// Every collection that can be seen, keyed by identifier; ``collectionOrder`` gives the order.
    var collectionStates: [CollectionID: CollectionVault] {
        // Each collection reads its items' records from this service's store.
        didSet {
            for vault in collectionStates.values where vault.records == nil { vault.records = store }
            publishCollections()
        }
    }
    /// Collections in catalog order, opened hidden ones after them; `session` is last.
    var collectionOrder: [CollectionID] { didSet { publishCollections() } }
    /// Alias name → collection; an alias may outlive its collection (it then reads as nil).
    var aliases: [String: CollectionID]
    /// The catalog as last written; nil until the vault is initialized.
    var catalog: Catalog?
    /// Hidden collections' headers while they are closed.
    var hiddenHeaders: [SpaceID: VaultHeader]
    /// Hidden collections an unlock is opening (not listed yet), and the Locks of everything so
    /// far: such a Lock reaches them too, and refuses a hidden unlock begun before it.
    var openingHidden: (vaults: [CollectionVault], locks: Int) = ([], 0)
    /// Collections whose files failed to open, with the reason (file and offset).
    var damaged: [(name: String, reason: String)]
    /// What is wrong with the vault beside its collections (a damaged catalog, a file that is not
    /// a regular file), each naming the file.
    var vaultProblems: [String] = []
    /// Consecutive wrong passcodes per collection (`""`: hidden) and the time of the last, for
    /// the doubling delay; kept in the vault's `attempts` file so a restart does not reset it.
    var failedAttempts: [String: PasscodeAttempts.Failures] = [:]
    /// When, on ``timeline``, each collection with wrong passcodes in a row tries the next one.
    var nextTries: [String: Duration] = [:]
    /// One passcode attempt at a time per collection (``passcodeAttempt(_:_:)``).
    var attemptTurns = AttemptTurns()
    /// Argon2id runs since start (tests check that a hidden unlock costs one, however many exist).
    package internal(set) var keyDerivations = 0
    /// Where this service's key derivations run, one at a time: each takes up to 256 MiB
    /// (MODERATE), and two at once on two cores would only split the time between them.
    // The service's own, not the process's: services in one process (a test run) must not wait
    // behind each other's derivations.
    let keyDerivationQueue = DispatchQueue(label: "puff.key-derivation")
    /// Runs on a key derivation's thread just before its Argon2id (tests hold a derivation there).
    package var beforeKeyDerivation: (@Sendable () -> Void)?
    /// The open transfer sessions, which the bus thread reads too (``ReadView``).
    var sessions: SessionTable {
        _read { yield readView.sessions.value }
        _modify { yield &readView.sessions.value }
    }
    /// The prompts handed out and not completed.
    var prompts = PromptBook()
    /// The question that brings `login` in step with a login password it missed; at most one per
    /// run of the service.
    var loginResync: Task<Void, Never>?
    /// Serialises mutations that await the store; see ``beginWrite()``.
    var isWriting = false
    var writeWaiters: Deque<CheckedContinuation<Void, Never>> = []
    /// Writes queued for a journal and not settled yet, in every collection (``PendingWrites``).
    var pendingWrites = 0
    /// Who waits for pending writes to settle (``drain(_:)``).
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// Each journal's generation as this service last saw it (``RecordStore/enqueueAppend(contentsOf:to:head:expecting:)``).
    var journalGenerations: [SpaceID: UInt64] = [:]
    /// Whether each shared collection's store answered its last pull or append (``SharedLink``).
    var sharedLinks: [SpaceID: SharedLink] = [:]
    /// The version of each fleet collection's shared header refused last (it did not authenticate,
    /// or was an older one put back): not checked or logged again (docs/design/fleet.md §5).
    var refusedSharedHeaders: [SpaceID: UInt64] = [:]
    /// Numbers each unlock's auto-lock clocks (``UnlockActivity/token``).
    var nextAutoLockToken: UInt64 = 0
    /// Whether ``loadVault()`` has run (``VaultLoading/now`` runs it in `init`).
    var vaultLoaded = false
    /// Whether calls may reach the vault (``vaultReady()``); until then they wait here.
    var isReady = false
    var readyWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var nextReadyWaiter: UInt64 = 0
    /// The check of the journals a start read from index snapshots (``journalsChecked()``).
    var journalCheck: Task<Void, Never>?

    /// Opens the vault in `store` and adds the in-memory `session` collection (alias `session`,
    /// secret-service.md §11).
    ///
    /// Visible collections open locked, their items found through the blind index; private ones
    /// show no items until unlocked; hidden ones are not listed. A collection whose files fail to
    /// open is left out and reported by ``vaultStatus``; the others open. An ephemeral vault gets an
    /// unlocked `login` collection (aliases `default` and `login`) under a random key.
    ///
    /// - Parameters:
    ///   - store: Where sealed records are kept.
    ///   - mode: Persistent (passcodes, with the KDF parameters for new ones) or ephemeral.
    ///   - prompter: Who answers unlock prompts.
    ///   - itemRules: The schema mappers behind ``typedRecord(of:)``, and whether internet
    ///     passwords are unique per server, user, protocol and port.
    ///   - promptTimeout: How long a started prompt may run before it is dismissed.
    ///   - limits: What one client may make the service hold.
    ///   - autoLock: When unlocked collections lock by themselves.
    ///   - keyKeeper: Keeps unlocked collections' keys across restarts; those it still has are
    ///     unlocked at once.
    ///   - tpm: The TPM for tpm2 slots (docs/design/unlock-slots.md §3); nil: none.
    ///   - securityKeys: FIDO2 security keys for fido2 slots; nil: none.
    ///   - transit: OpenBao's transit keys for transit slots (docs/fleet.md); nil: none.
    ///   - audit: Where each collection's audit log is kept; nil keeps none.
    ///   - access: Who may read secrets (default: every client, as before).
    ///   - keepDeletedDays: How long deleted collections are kept, sealed, so they can be
    ///     restored; older ones are purged now.
    ///   - keepSnapshots: How many automatic snapshots (before restore, repair, re-key, import)
    ///     are kept; 0 takes none.
    ///   - allowsPlainSessions: Whether `OpenSession("plain")` is served (default: yes, as every
    ///     Secret Service provider does); off, only DH sessions carry secrets.
    ///   - clock: Measures `promptTimeout`, passcode delays and auto-lock times; tests pass a
    ///     manual clock.
    ///   - now: The current time in seconds since the epoch, for `Created`/`Modified`.
    ///   - logger: Receives diagnostics; never secrets or attribute values.
    ///   - events: Receives every ``ServiceEvent``, synchronously.
    ///   - loading: ``VaultLoading/now`` (the default) loads the vault here and is ready;
    ///     ``VaultLoading/later`` touches no file: the caller runs ``loadVault()`` and then
    ///     ``becomeReady()``.
    /// - Throws: ``ServiceError/failed(_:)`` when the catalog cannot be read or, for an ephemeral
    ///   vault, `login` cannot be created.
    public init(
        store: any RecordStore,
        mode: VaultMode,
        prompter: any Prompter,
        itemRules: ItemRules = ItemRules(),
        promptTimeout: Duration,
        limits: ServiceLimits = ServiceLimits(),
        autoLock: AutoLockSettings = .never,
        keyKeeper: (any UnlockedKeyKeeper)? = nil,
        tpm: (any TPMSealing)? = nil,
        securityKeys: (any SecurityKeys)? = nil,
        transit: (any TransitSealing)? = nil,
        audit: (any AuditStore)? = nil,
        access: AccessConfiguration = .open,
        keepDeletedDays: Int = 7,
        keepSnapshots: Int = 3,
        allowsPlainSessions: Bool = true,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> UInt64,
        logger: Logger,
        events: @escaping @Sendable (ServiceEvent) -> Void,
        loading: VaultLoading = .now
    ) async throws(ServiceError) {
        self.store = store
        self.mode = mode
        self.prompter = prompter
        self.itemRules = itemRules
        self.promptTimeout = promptTimeout
        self.limits = limits
        self.clock = clock
        timeline = Timeline(clock)
        self.autoLock = autoLock
        self.keyKeeper = keyKeeper
        self.tpm = tpm
        self.securityKeys = securityKeys
        self.transit = transit
        auditLog = audit.map { AuditLog(store: $0, logger: logger) }
        self.access = AccessGate(access)
        self.keepDeletedDays = max(0, keepDeletedDays)
        self.keepSnapshots = max(0, keepSnapshots)
        self.allowsPlainSessions = allowsPlainSessions
        self.now = now
        self.logger = logger
        self.events = events
        catalog = nil
        hiddenHeaders = [:]
        damaged = []
        readView = ReadView(plainAccess: access.mode == .open, queryLimit: limits.attributesPerItem, now: now)
        collectionStates = [.session: Self.sessionCollection()]
        collectionOrder = [.session]
        aliases = ["session": .session]
        publishCollections()
        Self.flushReads(of: readView, into: self)
        if loading == .now {
            try await loadVault()
            await journalsChecked()
            becomeReady()
        }
    }

    // MARK: - Shared helpers

    func emit(_ event: ServiceEvent) {
        events(event)
    }

    /// Seals `draft` at the collection's next place in its chain and appends it, with the new head,
    /// before anything in memory changes, so a failed write leaves no trace: ``prepare(_:in:obsoleting:)``
    /// then ``commit(_:)``, both under the caller's write turn. The in-memory `session`
    /// collection writes nothing. A format 1 journal is first rewritten chained; a damaged
    /// collection takes no writes until `puffctl repair`.
    ///
    /// - Parameter obsoleting: How many journal records the append leaves describing nothing
    ///   live: the record it replaces, and for a deletion itself too.
    /// - Throws: ``ServiceError/damaged(_:)``, ``ServiceError/failed(_:)``.
    func persist(_ draft: RecordDraft, in vault: CollectionVault, obsoleting: Int) async throws(ServiceError) {
        let write = try await prepare(draft, in: vault, obsoleting: obsoleting)
        try await commit(write)
        if obsoleting > 0 { await compactIfWorthIt(vault) }
    }

    /// What a caller is told when the store could not save a change: the file system's refusal
    /// with what fixes it (issue 24 item 22), else `fallback` (the details are in the log).
    func unsaved(_ error: any Error, _ fallback: String) -> ServiceError {
        guard case .refused(let reason, let path)? = error as? StoreError else { return .failed(fallback) }
        return .vaultUnwritable(reason, folder: store.location ?? path)
    }

    /// What a write to a damaged collection is told.
    static func repairHint(_ vault: CollectionVault) -> String {
        "collection \(vault.id) is damaged (\(vault.damage.first ?? "")); puffctl repair \(vault.id) keeps what authenticates"
    }

    /// Waits until no other mutation is between its checks and its commit.
    ///
    /// The actor is re-entrant: while one call awaits the backend another could pass the same checks
    /// (for example take the same item number). Every mutating call brackets its check–commit–apply
    /// with `beginWrite`/`endWrite`.
    ///
    /// It also waits until every pending write (``beginPipelinedWrite()``) has settled, so the
    /// caller sees the collections as their journals are.
    func beginWrite() async {
        await beginPipelinedWrite()
        await drain(nil)
    }

    /// Takes the write turn without waiting for pending writes: for a write that checks against
    /// them (``PendingWrites``) and releases the turn once its record is queued, before its flush.
    func beginPipelinedWrite() async {
        if isWriting {
            await withCheckedContinuation { writeWaiters.append($0) }
        } else {
            isWriting = true
        }
    }

    /// Waits until `vault` (nil: every collection) has no pending writes.
    func drain(_ vault: CollectionVault?) async {
        while vault.map({ !$0.pending.isEmpty }) ?? (pendingWrites > 0) {
            await withCheckedContinuation { drainWaiters.append($0) }
        }
    }

    /// How many mutations wait for the write turn (tests use it as an explicit hold point).
    package var writersWaiting: Int { writeWaiters.count }

    /// Hands the write turn to the next waiter, if any.
    func endWrite() {
        if let next = writeWaiters.popFirst() {
            // The turn passes directly, so `isWriting` stays true.
            next.resume()
        } else {
            isWriting = false
        }
    }
}
