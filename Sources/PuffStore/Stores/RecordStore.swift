// SPDX-License-Identifier: Apache-2.0

/// Keeps a vault's sealed bytes: per collection space a header and an append-only journal of
/// records, plus one catalog. Chosen by configuration (architecture.md Part A items 4 and 7).
///
/// A store sees sealed bytes only: it frames, checksums and persists them, and never learns what
/// they hold. Every method either completes durably or throws and leaves what was durable before
/// it readable.
public protocol RecordStore: Sendable {
    /// Name used in configuration: `"file"` or `"memory"`.
    static var kind: String { get }

    /// The kind of store the vault is in, for `status` and logs: ``kind``, or for a decorator
    /// that adds no store of its own (``FleetRecordStore``) the kind of the store it decorates.
    var kindName: String { get }

    /// Every space that has a header, visible or hidden, in no particular order.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``.
    func spaces() async throws(StoreError) -> [SpaceID]

    /// The space's current header bytes.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when they fail their checksum,
    ///   ``StoreError/readFailed(_:)``.
    func header(of space: SpaceID) async throws(StoreError) -> [UInt8]

    /// Replaces the space's header atomically, creating the space (with an empty journal) if new.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the old header is then still in place.
    func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError)

    /// The record `locator` names in `space`'s journal, read now (design core-reshaped §5): a
    /// collection keeps locators, not records, and reads one when a call touches its item.
    /// Callable from any thread (no actor hop); the bytes are as unauthenticated as the journal.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when the journal no longer holds that
    ///   record there (cut or rewritten since it was read), ``StoreError/noSuchSpace(_:)``,
    ///   ``StoreError/readFailed(_:)``.
    func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8]

    /// Reads the space's journal from the start. A torn tail (a record cut short by a crash, so
    /// never acknowledged) is cut off and described in ``JournalReplay/cut``.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` for a bad record before the tail.
    func replay(_ space: SpaceID) async throws(StoreError) -> JournalReplay

    /// Appends one record, then (when given) writes `head` as the space's newest head; both are
    /// durable (`fsync`) when this returns. The head is written in one of two slots, so a torn
    /// head write leaves the one before it readable.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` (full disk, file size limit); the journal then
    ///   ends where it ended before.
    func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError)

    /// Appends `records` in order with one write and one `fsync` (an import's batch), then (when
    /// given) writes `head` as the space's newest head. All of them or none are in the journal
    /// when this returns or throws: a crash part-way leaves a torn tail replay cuts off, as for
    /// one record.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the journal then ends where it ended before.
    func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError)

    /// Queues `records` (and `head`) for appending behind every append queued before it and
    /// returns the ticket, which returns once they are durable (design core-reshaped §6): a caller
    /// queues in chain order under its write turn and waits for the flush after releasing it, so
    /// appends queued meanwhile share one flush.
    ///
    /// - Parameter generation: The journal's generation the caller's chain follows (nil: the
    ///   current one). A failed append raises it: appends queued for the journal as it was fail
    ///   too, rather than follow a record that is not there.
    /// - Throws: ``StoreError/noSuchSpace(_:)``; stores without a queue append at once and throw
    ///   as ``append(contentsOf:to:head:)`` does.
    func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket

    /// Replaces the space's journal with `records` atomically, as a journal of `version`
    /// (compaction, upgrade, repair). The head is not touched: the caller replaces it before or
    /// after, whichever keeps the pair readable after a crash between the two.
    ///
    /// - Parameter keepingOldAs: When given, the old journal is kept under this suffix
    ///   (`<space>.journal<suffix>`) instead of being replaced away; when a file of that name is
    ///   already there (a second repair within the same second), under the first free of
    ///   `<suffix>-2`, `<suffix>-3`, …: an earlier kept journal is never replaced.
    /// - Returns: The bytes the journal shrank by, and the suffix the old journal is kept under.
    /// - Throws: ``StoreError/writeFailed(_:)``; the old journal is then still in place.
    func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite

    /// Replaces the space's head atomically with `head` alone.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the old head is then still in place.
    func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError)

    /// Writes `new` whole as the replacement of `old` (a re-key, docs/vault-format.md "Re-keying"):
    /// first a note that `new` replaces `old`, then `new`'s journal holding `records` (the current
    /// format) and `head`, then its header. The header's atomic rename is the switch: a crash
    /// before it leaves `old` as it was and `new` unfinished, a crash after it leaves `new`
    /// complete beside `old`; ``replacements()`` reports either, and
    /// ``settleReplacement(_:keepingNew:)`` ends it. `old` is not touched.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; ``replacements()`` then says how far it got.
    func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)

    /// The replacements begun by ``replaceSpace(_:with:header:records:head:)`` and not settled yet.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``.
    func replacements() async throws(StoreError) -> [SpaceReplacement]

    /// Ends a replacement: with `keepingNew`, removes every file of the old space (the header
    /// first, its audit logs and kept tails too); without, every file of the new one. Then the
    /// note, so a crash in between leaves the replacement to settle again.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError)

    /// Removes the space's header and journal.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func remove(_ space: SpaceID) async throws(StoreError)

    /// Moves the space's files aside (a deleted collection, kept sealed until purged), stamped
    /// with `time` in seconds since the epoch: afterwards ``spaces()`` no longer lists it.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the space is then still in place.
    func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError)

    /// The spaces set aside, oldest first, each with its header and journal as they were.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``.
    func setAsideSpaces() async throws(StoreError) -> [SetAsideSpace]

    /// Moves a space set aside back in place.
    ///
    /// - Throws: ``StoreError/noSuchSpace(_:)`` when nothing was set aside under that name or the
    ///   space exists again; ``StoreError/writeFailed(_:)``.
    func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError)

    /// Removes for good every space set aside before `time`.
    ///
    /// - Returns: What was removed.
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name]

    /// Files of the vault that are not regular files (a FIFO, link, socket or folder planted in
    /// the vault folder), each as the ``StoreError/damaged(file:offset:reason:)`` it is reported
    /// as; such a file is never followed, read or waited on.
    func refusedFiles() async -> [StoreError]

    /// The catalog bytes, or nil when none was ever written.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)``, ``StoreError/readFailed(_:)``.
    func catalog() async throws(StoreError) -> [UInt8]?

    /// Replaces the catalog atomically.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the old catalog is then still in place.
    func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError)

    /// The wrong-passcode file's contents (``PasscodeAttempts``), or nil when there is none.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)``, ``StoreError/readFailed(_:)``.
    func passcodeAttempts() async throws(StoreError) -> [UInt8]?

    /// Replaces the wrong-passcode file atomically.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    func replacePasscodeAttempts(_ bytes: [UInt8]) async throws(StoreError)

    /// Where the store keeps its files, for `status`; nil for memory.
    var location: String? { get }

    /// The vault's files now (catalog, headers, journals, heads, deleted collections), to be
    /// written as a backup later; the caller makes sure no write runs while this does. Audit logs
    /// come from the ``AuditStore``.
    ///
    /// - Throws: ``StoreError/readFailed(_:)``; a memory store has no files to snapshot.
    func snapshot() async throws(StoreError) -> VaultSnapshot

    /// Writes `snapshot` into the vault's snapshot folder, keeping the newest `keep`; `counting`
    /// is told the bytes copied.
    ///
    /// - Returns: Its path, or nil when `keep` is 0.
    func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?)
        async throws(StoreError) -> String?

    /// Unpacks the backup on `fd` beside the vault, checked whole, without touching the vault;
    /// `counting` is told the archive's bytes as they are read (its size in all).
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming `path` and the offset.
    func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) async throws(StoreError) -> StagedRestore

    /// Replaces the vault's files with `staged`'s; a crash in the middle finishes at the next
    /// start. The caller makes sure no write runs meanwhile.
    func commitRestore(_ staged: StagedRestore) async throws(StoreError)

    /// Removes what ``stageRestore(from:path:)`` unpacked, when the restore does not go on.
    func discardRestore(_ staged: StagedRestore) async

    /// The bytes of `space`'s index snapshot (``IndexSnapshot``), or nil when it has none or it
    /// cannot be read safely; a store that keeps none returns nil.
    func indexSnapshot(of space: SpaceID) async -> [UInt8]?

    /// Writes `space`'s index snapshot whole, in place of the old one.
    func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError)

    /// The records of `space` from `offset` on, with its heads, or nil when that is not where
    /// whole, good frames run to the journal's end (the caller then replays it whole).
    func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay?

    /// Whether `space`'s journal holds whole frames whose checksums match from its start to
    /// `offset`: the part of it an index snapshot stood for at start, checked after the names
    /// (design core-reshaped §4.3). A store whose records cannot be torn or flipped (memory) says yes.
    func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool

    /// What the store calls `object`, for messages and damage reports: a file's path for the file
    /// store, a bare name in memory, a key for a remote store. The service composes none itself.
    func name(of object: StoreObject) -> String

    /// The generation of `space`'s journal, for compare-and-set appends: an append expecting
    /// another (``enqueueAppend(contentsOf:to:head:expecting:)``) is refused with
    /// ``StoreError/staleGeneration(_:expected:current:)`` and writes nothing. It moves when the
    /// journal changes in a way an appender that did not see it must not build on: a failed
    /// append and, in a store several processes write (a remote one), another writer's append.
    ///
    /// - Throws: ``StoreError/readFailed(_:)`` when a remote store cannot say.
    func generation(of space: SpaceID) async throws(StoreError) -> UInt64

    /// Makes every head written so far durable: a clean stop's last step, since a head's flush
    /// otherwise waits for appends to pause (docs/vault-format.md, Files).
    func flushHeads() async

    /// Brings into `space`'s local journal what other writers of a shared store appended since
    /// this store last looked (docs/design/fleet.md §0), and returns it; nil when nothing came or
    /// the space is not shared. The service calls it holding its write turn, so its memory and
    /// the journal move together.
    ///
    /// - Throws: ``StoreError/unavailable(_:)`` when the shared store cannot be reached (the
    ///   local journal is unchanged), ``StoreError/writeFailed(_:)``.
    func pull(_ space: SpaceID) async throws(StoreError) -> PulledRecords?

    /// `space`'s header as the shared store keeps it when it is newer than the one this vault
    /// took last (another machine changed its slots, docs/design/fleet.md §5); nil when it is
    /// not, or the space is not shared. Nothing is written: the caller checks it with the
    /// collection's key and then hands it to ``adoptHeader(_:of:)``.
    ///
    /// - Throws: ``StoreError/unavailable(_:)``.
    func sharedHeader(of space: SpaceID) async throws(StoreError) -> SharedHeader?

    /// Makes `header`, read by ``sharedHeader(of:)`` and checked by the caller, `space`'s local
    /// header (replaced as ``replaceHeader(_:of:)`` replaces it: old or new after a crash), unless
    /// a header at least as new was taken or written meanwhile.
    ///
    /// - Returns: Whether it was taken.
    /// - Throws: ``StoreError/writeFailed(_:)``; the old header is then still in place.
    func adoptHeader(_ header: SharedHeader, of space: SpaceID) async throws(StoreError) -> Bool

    /// The name `space` is shared under in a shared store (a fleet collection's name in OpenBao,
    /// docs/design/fleet.md §2), or nil for a space only this vault holds. The service refuses
    /// what would rewrite a shared space's chain (re-key, compaction, repair).
    func sharedName(of space: SpaceID) -> String?

    /// The kind of the shared store the shared spaces are kept in (``FleetLog/kindName``,
    /// `openbao`), as `status` names a fleet collection's store; nil when there is none.
    var sharedStoreKind: String? { get }

    /// Shares `space` under `name` in the store's shared store (a fleet collection,
    /// docs/design/fleet.md): its header and journal are published, and its appends go there
    /// first from then on. The caller holds its write turn with no append in flight.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` (a store with no shared store, a name taken, a
    ///   space that cannot be shared), ``StoreError/unavailable(_:)``.
    func share(_ space: SpaceID, as name: String) async throws(StoreError)

    /// Copies the collection a shared store keeps as `name` into this vault as a fleet
    /// collection, and returns its space (the same on every machine).
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` (a store with no shared store, no such
    ///   collection, one this vault holds already), ``StoreError/damaged(file:offset:reason:)``,
    ///   ``StoreError/unavailable(_:)``.
    func attach(_ name: String) async throws(StoreError) -> SpaceID
}

extension RecordStore {
    /// Appends at once, before returning a settled ticket: a store (or decorator) without a
    /// queue of its own keeps writes one at a time, as before. Compare-and-set against
    /// ``generation(of:)``: refused, with nothing written, when `generation` is not current.
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        let current = try await self.generation(of: space)
        if let generation, generation != current {
            throw .staleGeneration(space, expected: generation, current: current)
        }
        try await append(contentsOf: records, to: space, head: head)
        return AppendTicket(settled: .success(()), generation: current)
    }

    /// The name within the vault (``StoreObject/localName``): a store with no folder of its own.
    public func name(of object: StoreObject) -> String {
        object.localName
    }

    /// Nothing to do: a store without a head file of its own.
    public func flushHeads() async {}

    /// Nil: a store no other process writes has nothing to pull.
    public func pull(_ space: SpaceID) async throws(StoreError) -> PulledRecords? {
        nil
    }

    /// Nil: a store no other process writes keeps no other header.
    public func sharedHeader(of space: SpaceID) async throws(StoreError) -> SharedHeader? {
        nil
    }

    /// False: a store no other process writes has no other header to take.
    public func adoptHeader(_ header: SharedHeader, of space: SpaceID) async throws(StoreError) -> Bool {
        false
    }

    /// ``kind``: a store that decorates none.
    public var kindName: String { Self.kind }

    /// Nil: no space of such a store is shared.
    public func sharedName(of space: SpaceID) -> String? {
        nil
    }

    /// Nil: such a store has no shared store.
    public var sharedStoreKind: String? { nil }

    /// Refused: a store with no shared store behind it.
    public func share(_ space: SpaceID, as name: String) async throws(StoreError) {
        throw Self.noSharedStore
    }

    /// Refused: a store with no shared store behind it.
    public func attach(_ name: String) async throws(StoreError) -> SpaceID {
        throw Self.noSharedStore
    }

    /// What a store with no shared store says to ``share(_:as:)`` and ``attach(_:)``.
    public static var noSharedStore: StoreError {
        .writeFailed("this vault keeps no shared collections: puffd has no shared store configured")
    }

    /// Always 0: a store that cannot fail part-way nor be written by another process never moves
    /// its generation.
    public func generation(of space: SpaceID) async throws(StoreError) -> UInt64 {
        0
    }

    /// Appends one record without touching the head (tests use it as a forger would).
    public func append(_ record: [UInt8], to space: SpaceID) async throws(StoreError) {
        try await append(record, to: space, head: nil)
    }

    /// Replaces the space's journal with `records` of the current version, dropping the old one.
    public func rewrite(_ space: SpaceID, records: [[UInt8]]) async throws(StoreError) -> UInt64 {
        try await rewrite(space, records: records, version: VaultRecord.currentFormat, keepingOldAs: nil).shrunk
    }

    /// ``saveSnapshot(_:reason:keep:counting:)`` counting nothing.
    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int) async throws(StoreError)
        -> String?
    {
        try await saveSnapshot(snapshot, reason: reason, keep: keep, counting: nil)
    }

    /// ``stageRestore(from:path:counting:)`` counting nothing.
    public func stageRestore(from fd: Int32, path: String) async throws(StoreError) -> StagedRestore {
        try await stageRestore(from: fd, path: path, counting: nil)
    }
}
