// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A ``RecordStore`` whose fleet spaces are also kept in a shared log, OpenBao's in puffd
/// (docs/design/fleet.md): a decorator over the vault's own store, `local`, which stays the
/// sealed cache. Every read is local, so reads work offline and cost what they cost without it.
///
/// A space becomes a fleet space by ``share(_:as:)`` (published from here) or ``attach(_:)``
/// (copied from the log); the ``FleetMap`` says which spaces are, under which name, and how many
/// entries of the log this vault holds (the space's generation). An append to a fleet space
/// creates the log's next entry first, then appends locally; one taken by another writer is
/// refused as stale with nothing written, and ``pull(_:)`` brings in what others appended.
/// Everything else, and every call for other spaces, goes to `local` as it is.
public final class FleetRecordStore: RecordStore {
    /// `"fleet"`.
    public static let kind = "fleet"

    /// The store every read comes from and every record ends up in.
    public let local: any RecordStore
    /// The shared log; nil when none is configured: fleet spaces then take no writes
    /// (``StoreError/unavailable(_:)``) rather than go on alone.
    public let log: (any FleetLog)?

    /// Where the map is kept.
    enum Storage: Sendable {
        /// The `fleet` file of a file store's folder.
        case file(FileRecordStore)
        /// Only in ``state`` (a vault in memory).
        case memory
    }

    struct State {
        var map: FleetMap
        /// Fleet spaces whose local journal was compared with the map since this store opened.
        var checked: Set<SpaceID> = []
    }

    let storage: Storage
    let state: Mutex<State>
    /// One turn per fleet space: its entries and local appends, pulls and header changes in order.
    private let turns = Mutex<[SpaceID: FleetTurn]>([:])
    /// Taken by ``share(_:as:)`` and ``attach(_:)``, so two of them never claim one name or space.
    let claiming = FleetTurn()
    /// Taken to write the map, so writes never interleave and the last one holds the newest map.
    private let saving = FleetTurn()

    /// Decorates a file store, keeping the map in its folder's `fleet` file.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when the file does not read (a
    ///   planted one is refused, never followed or waited on): without it no space could be told
    ///   from a fleet one, and an append would go on alone; ``StoreError/readFailed(_:)``.
    public convenience init(files: FileRecordStore, log: (any FleetLog)?) throws(StoreError) {
        var map = FleetMap()
        if let bytes = try files.fleetMap() {
            guard let decoded = FleetMap(decoding: bytes) else {
                throw .damaged(
                    file: files.fleetMapPath,
                    offset: UInt64(ChecksummedFile.fleetMagic.count + JournalFraming.frameOverhead),
                    reason: "not a list of fleet collections")
            }
            map = decoded
        }
        self.init(local: files, log: log, storage: .file(files), map: map)
    }

    /// Decorates any store, keeping the map in memory (a vault in memory, tests).
    public convenience init(keepingMapInMemory local: any RecordStore, log: (any FleetLog)?) {
        self.init(local: local, log: log, storage: .memory, map: FleetMap())
    }

    private init(local: any RecordStore, log: (any FleetLog)?, storage: Storage, map: FleetMap) {
        self.local = local
        self.log = log
        self.storage = storage
        state = Mutex(State(map: map))
    }

    /// The fleet spaces as this vault holds them.
    public var map: FleetMap { state.withLock { $0.map } }

    /// The space's entry in the map, if it is a fleet space.
    func mapped(_ space: SpaceID) -> FleetMap.Share? {
        state.withLock { $0.map.shares[space] }
    }

    /// The turn of `space`, made on first use.
    func turn(_ space: SpaceID) -> FleetTurn {
        turns.withLock { turns in
            if let turn = turns[space] { return turn }
            let turn = FleetTurn()
            turns[space] = turn
            return turn
        }
    }

    /// Writes the map as it is now.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the old file is then still in place.
    func saveMap() async throws(StoreError) {
        try await saving.run { () async throws(StoreError) in
            guard case .file(let files) = storage else { return }
            try files.replaceFleetMap(state.withLock { $0.map.encoded() })
        }
    }

    /// The shared log, for a write to the fleet space `share` names.
    ///
    /// - Throws: ``StoreError/unavailable(_:)`` when none is configured.
    func requireLog(for share: FleetMap.Share) throws(StoreError) -> any FleetLog {
        guard let log else {
            throw .unavailable("\(share.name) is a fleet collection and no shared store is configured")
        }
        return log
    }

    /// The refusal of `what` for the fleet space `space` (docs/design/fleet.md §4).
    func refusal(_ what: String, _ space: SpaceID, _ share: FleetMap.Share) -> StoreError {
        .writeFailed(
            "\(space.hex) is a fleet collection kept in OpenBao at \(log?.address ?? "an address not configured") "
                + "as \(share.name): \(what) would rewrite the chain the other machines hold too, "
                + "which is refused for fleet collections for now")
    }

    public var location: String? { local.location }

    public func sharedName(of space: SpaceID) -> String? {
        mapped(space)?.name
    }

    public var sharedStoreKind: String? { log?.kindName }

    /// For a fleet space, the entries of the log its journal holds; otherwise the local store's.
    public func generation(of space: SpaceID) async throws(StoreError) -> UInt64 {
        if let share = mapped(space) { return share.generation }
        return try await local.generation(of: space)
    }

    /// For a fleet space, the shared header first (expecting the version last read), then the
    /// local one; otherwise the local store's.
    ///
    /// - Throws: ``StoreError/staleGeneration(_:expected:current:)`` when another writer replaced
    ///   the shared header since (nothing written), ``StoreError/unavailable(_:)``,
    ///   ``StoreError/writeFailed(_:)``.
    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        guard mapped(space) != nil else { return try await local.replaceHeader(bytes, of: space) }
        try await turn(space).run { () async throws(StoreError) in
            guard let share = mapped(space) else { return try await local.replaceHeader(bytes, of: space) }
            let version = try await requireLog(for: share).replaceHeader(
                bytes, of: share.name, expecting: share.headerVersion, space: space)
            state.withLock { $0.map.shares[space]?.headerVersion = version }
            try await local.replaceHeader(bytes, of: space)
            try await saveMap()
        }
    }

    /// Refused for a fleet space (compaction, upgrade, repair); otherwise the local store's.
    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        if let share = mapped(space) { throw refusal("compacting or repairing it", space, share) }
        return try await local.rewrite(space, records: records, version: version, keepingOldAs: keepingOldAs)
    }

    /// Refused when `old` is a fleet space (a re-key); otherwise the local store's.
    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        if let share = mapped(old) { throw refusal("changing its key", old, share) }
        try await local.replaceSpace(old, with: new, header: header, records: records, head: head)
    }

    /// Removes the space locally; a fleet space also leaves the map. The shared log keeps the
    /// collection: other machines go on with it, and ``attach(_:)`` brings it back here.
    public func remove(_ space: SpaceID) async throws(StoreError) {
        try await local.remove(space)
        try await forget(space)
    }

    /// Sets the space aside locally; a fleet space also leaves the map, so brought back it is a
    /// collection of this vault alone. The shared log keeps the collection: other machines go on
    /// with it, and ``attach(_:)`` brings it back here.
    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        try await local.setAside(space, at: time)
        try await forget(space)
    }

    /// Drops `space` from the map, if it is there.
    private func forget(_ space: SpaceID) async throws(StoreError) {
        guard mapped(space) != nil else { return }
        try await turn(space).run { () async throws(StoreError) in
            state.withLock { state in
                state.map.shares[space] = nil
                state.checked.remove(space)
            }
            try await saveMap()
        }
    }
}
