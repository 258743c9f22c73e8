// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// When ``SecretService/init(store:mode:prompter:itemRules:promptTimeout:limits:autoLock:keyKeeper:tpm:securityKeys:audit:access:keepDeletedDays:keepSnapshots:allowsPlainSessions:clock:now:logger:events:loading:)``
/// reads the vault.
public enum VaultLoading: Sendable {
    /// In `init`: the service is ready when it returns (tests, tools).
    case now
    /// Later, by ``SecretService/loadVault()``: puffd takes its bus names first (design §4).
    case later
}

extension SecretService {
    /// The in-memory `session` collection (alias `session`, secret-service.md §11).
    static func sessionCollection() -> CollectionVault {
        let session = CollectionFields(
            id: CollectionID.session.rawValue, label: "", created: 0, modified: 0, nextItemNumber: 1, aliases: [])
        return CollectionVault(
            id: .session, space: nil, header: nil,
            opened: OpenedCollection(
                fields: session, items: ItemTable(), index: AttributeIndex(), hasher: KeyedHash(),
                sealer: SecretSealer(), deadRecords: 0))
    }

    /// Reads the vault: the catalog, headers and visible journals, the wrong-passcode counts; an
    /// ephemeral vault gets its `login`; keys kept across a restart unlock their collections;
    /// deleted collections past their days are purged. Runs once.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the vault cannot be listed or, for an ephemeral
    ///   vault, `login` cannot be created.
    public func loadVault() async throws(ServiceError) {
        guard !vaultLoaded else { return }
        vaultLoaded = true
        let loaded = try await VaultLoader.load(store: store, logger: logger, tpm: tpm)
        failedAttempts = await Self.loadAttempts(from: store, logger: logger)
        catalog = loaded.catalog
        hiddenHeaders = loaded.hidden
        damaged = loaded.damaged
        vaultProblems = loaded.problems
        for space in loaded.retired { keyKeeper?.forget(space) }
        var states = loaded.collections
        states[.session] = collectionStates[.session]
        collectionStates = states
        collectionOrder = loaded.order + [.session]
        var aliases = Dictionary(
            uniqueKeysWithValues: (catalog?.aliases ?? [:]).map { ($0.key, CollectionID($0.value)) })
        aliases["session"] = .session
        self.aliases = aliases
        // Before anything can write or unlock (both wait for it).
        await startJournalCheck(loaded.unchecked)
        if case .ephemeral = mode, catalog == nil {
            try await initialize(passcode: nil, announce: false)
        }
        await unlockFromKeeper()
        await purgeDeleted()
        // The journals' bytes read to scan them are freed by now.
        MemoryTrim.trim()
        logger.info(
            "Secret service ready",
            metadata: [
                "vault.kind": "\(store.kindName)", "collections": "\(collectionOrder.count)",
                "damaged": "\(damaged.count)",
            ])
    }

    /// Lets the calls waiting in ``vaultReady()`` go on, and every later one pass at once.
    public func becomeReady() {
        guard !isReady else { return }
        isReady = true
        readView.markReady()
        let waiting = readyWaiters
        readyWaiters = [:]
        for each in waiting.values { each.resume(returning: true) }
    }

    /// Returns once the vault is loaded and start-up is done (``becomeReady()``): what every
    /// entry point that reaches the vault awaits first. A bus lane awaits it inside its runner,
    /// so one client's calls stay in order.
    ///
    /// - Returns: False when the waiting task was cancelled first (puffd stopping).
    @discardableResult
    public func vaultReady() async -> Bool {
        guard !isReady else { return true }
        let id = nextReadyWaiter
        nextReadyWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    readyWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.stopWaitingForReady(id) }
        }
    }

    /// Calls waiting in ``vaultReady()`` (tests use it as a hold point).
    package var callsWaitingForVault: Int { readyWaiters.count }

    private func stopWaitingForReady(_ id: UInt64) {
        readyWaiters.removeValue(forKey: id)?.resume(returning: false)
    }
}
