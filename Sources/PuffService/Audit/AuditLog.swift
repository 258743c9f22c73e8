// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Logging
import PuffCrypto
import PuffStore
import Synchronization

/// The collections' audit logs (docs/vault-format.md): seals each entry under its collection's
/// audit key, numbers it, hands it to the ``AuditStore`` and has the store synced within
/// ``syncDelay``. Owned and touched only by the ``SecretService`` actor, so entries are numbered
/// and appended in the order they happened.
final class AuditLog {
    let store: any AuditStore
    /// How long an entry may stay unsynced: what a crash can lose.
    let syncDelay: Duration
    private let logger: Logger
    /// The number the next entry of each log gets; read from the log when its collection opens
    /// (``prime(_:next:)``), else at its first append.
    private var nextSequence: [SpaceID: UInt64] = [:]
    private let syncScheduled = Flag()
    /// Sealed entries waiting for ``flush()``, per log, and the logs in the order they got one.
    private var pending: [SpaceID: [[UInt8]]] = [:]
    private var pendingOrder: [SpaceID] = []
    /// Whether the last append failed, so a full disk is logged once, not on every read.
    private var isFailing = false
    /// Logs being re-keyed (``hold(_:)``): their entries wait in ``pending`` until ``move(_:to:_:)``.
    private var held: Set<SpaceID> = []
    /// Logs checked for removal since the last ``flush()``: deferred entries are written together,
    /// so one check before the first of them covers the batch (not one `stat` per read).
    private var checked: Set<SpaceID> = []

    /// A Sendable flag the deferred sync clears.
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(store: any AuditStore, syncDelay: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.syncDelay = syncDelay
        self.logger = logger
    }

    /// Appends `fields` to `space`'s log, at once or, with `deferred`, at the next ``flush()``
    /// (entries of one call written together: one `write` per log, not per entry). The entry is
    /// numbered and sealed now either way, so entries stay in the order they happened. A failure
    /// is logged and otherwise ignored: the audit trail is defence in depth, and a full disk must
    /// not stop clients from reading secrets.
    func append(_ fields: AuditFields, to space: SpaceID, sealer: SecretSealer, deferred: Bool = false) {
        if !deferred || checked.insert(space).inserted { noteRemoval(of: space, sealer: sealer, time: fields.time) }
        seal(fields, to: space, sealer: sealer)
        if !deferred { flush() }
    }

    /// When `space`'s file was removed behind puffd's back (``AuditStore/wasRemoved(_:)``),
    /// starts the new file with a `log-removed` entry; its number goes on from the last one, so
    /// the entries that went show as missing too. Checked before every write and every read.
    func noteRemoval(of space: SpaceID, sealer: SecretSealer, time: UInt64) {
        guard store.wasRemoved(space) else { return }
        logger.warning(
            "An audit log was removed while puffd ran; starting a new one", metadata: ["space": "\(space.hex)"])
        let notice = AuditFields(
            action: AuditAction.logRemoved.rawValue, result: AuditResult.failed.rawValue, time: time, item: 0,
            label: "the log's file was removed while puffd ran: the entries before this one are gone",
            executable: "", client: "puffd", pid: 0)
        seal(notice, to: space, sealer: sealer)
        flush()
    }

    /// Numbers and seals one entry and queues it for ``flush()``.
    private func seal(_ fields: AuditFields, to space: SpaceID, sealer: SecretSealer) {
        let sequence = nextSequence[space] ?? Self.sequence(after: store, space)
        nextSequence[space] = sequence + 1
        let record = AuditRecord(sequence: sequence, fields: fields, space: space, sealer: sealer)
        if pending[space] == nil { pendingOrder.append(space) }
        pending[space, default: []].append(record.encoded())
    }

    /// Writes the deferred entries, one `write` per log.
    func flush() {
        checked = []
        guard !pendingOrder.isEmpty else { return }
        let (order, batches) = (pendingOrder, pending)
        (pendingOrder, pending) = ([], [:])
        var wrote = false
        for space in order {
            guard let batch = batches[space] else { continue }
            guard !held.contains(space) else {
                pendingOrder.append(space)
                pending[space] = batch
                continue
            }
            do {
                try store.append(batch, to: space)
                wrote = true
                isFailing = false
            } catch {
                // Numbered entries that never reached the file: the next append reads the log's
                // own last number again, so no gap is left.
                nextSequence[space] = nil
                if !isFailing { logger.error("Audit log write failed", metadata: ["error": "\(error)"]) }
                isFailing = true
            }
        }
        if wrote { scheduleSync() }
    }

    /// Writes what waits, then closes a log whose collection is set aside (its file goes with it).
    func close(_ space: SpaceID) {
        flush()
        nextSequence[space] = nil
        store.closeLog(space)
    }

    /// Writes what waits, then keeps `space`'s later entries in memory while its collection is
    /// re-keyed, so the copy sealed off the actor misses none of them.
    func hold(_ space: SpaceID) {
        flush()
        held.insert(space)
    }

    /// Ends a re-key that did not happen: the held entries are written to `space`'s log after
    /// all, and whatever was written of `abandoned`'s log is removed.
    func release(_ space: SpaceID, abandoning abandoned: SpaceID) {
        held.remove(space)
        remove(abandoned)
        flush()
    }

    /// Ends a re-key that happened: the entries held for `old` are sealed again under `keys`' new
    /// key as the next entries of `new`'s log (written with them by the re-key), and `old`'s log
    /// is removed.
    func move(_ old: SpaceID, to new: SpaceID, _ keys: CollectionRekeying.Keys) {
        held.remove(old)
        let waiting = pending.removeValue(forKey: old) ?? []
        pendingOrder.removeAll { $0 == old }
        nextSequence[new] = nextSequence[old]
        remove(old)
        guard !waiting.isEmpty else { return }
        if pending[new] == nil { pendingOrder.append(new) }
        pending[new, default: []].append(contentsOf: CollectionRekeying.resealAudit(waiting, keys: keys))
        flush()
    }

    /// Forgets a deleted collection's log.
    func remove(_ space: SpaceID) {
        nextSequence[space] = nil
        pending[space] = nil
        do {
            try store.remove(space)
        } catch {
            logger.error("Removing an audit log failed", metadata: ["error": "\(error)"])
        }
    }

    /// Syncs the store `syncDelay` from now, unless a sync is already due: one `fdatasync` per
    /// log per period however many entries, off the actor and off the cooperative pool.
    private func scheduleSync() {
        guard !syncScheduled.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (store, flag, logger) = (store, syncScheduled, logger)
        let (seconds, attoseconds) = syncDelay.components
        let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) {
            // Cleared first, so an entry appended during the sync schedules the next one.
            flag.value.store(false, ordering: .releasing)
            do {
                try store.sync()
            } catch {
                logger.error("Audit log sync failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Whether the number of `space`'s next entry is known, so no append has to read the log.
    func knowsSequence(of space: SpaceID) -> Bool { nextSequence[space] != nil }

    /// Sets the number of `space`'s next entry, found off the actor while its collection opened;
    /// a number an append has set since stays.
    func prime(_ space: SpaceID, next: UInt64) {
        if nextSequence[space] == nil { nextSequence[space] = next }
    }

    /// One past the newest sequence number in `space`'s log; 1 for a new log. Reads the whole
    /// log: called off the actor when a collection opens, and by an append only when that did not
    /// happen.
    static func sequence(after store: any AuditStore, _ space: SpaceID) -> UInt64 {
        guard let last = try? store.entries(of: space).records.last,
            let record = try? AuditRecord(decoding: last)
        else { return 1 }
        return record.sequence &+ 1
    }
}
