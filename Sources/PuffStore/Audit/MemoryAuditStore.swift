// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The same ``AuditStore`` in process memory, rotating at the same sizes a file would: for tests
/// and for `puffd --ephemeral`. Tests can make appends fail and count syncs.
public final class MemoryAuditStore: AuditStore {
    public let limit: Int

    private struct Log {
        var predecessor: [[UInt8]] = []
        var current: [[UInt8]] = []
        var size = AuditFraming.preamble.count
    }

    private struct State {
        var logs: [SpaceID: Log] = [:]
        var syncs = 0
        var writes = 0
        var unsynced = 0
        var failures = 0
    }

    private let state = Mutex(State())

    /// An empty store whose logs rotate past `limit` bytes (as framed in a file).
    public init(limit: Int = 1 << 20) {
        self.limit = max(limit, AuditFraming.preamble.count + 1)
    }

    public func append(_ entries: [[UInt8]], to space: SpaceID) throws(StoreError) {
        let size = entries.reduce(0) { $0 + $1.count + JournalFraming.frameOverhead }
        try state.withLock { (state) throws(StoreError) in
            if state.failures > 0 {
                state.failures -= 1
                throw .writeFailed("injected failure")
            }
            // Taken out of the table, not copied from it, so that the append below extends the one
            // array in place: a copy made every entry cost the whole log (a read's entry in an
            // --ephemeral puffd copied every earlier one; perf showed it as a fifth of its time).
            var log = state.logs.removeValue(forKey: space) ?? Log()
            if log.size > AuditFraming.preamble.count, log.size + size > limit {
                log = Log(predecessor: log.current)
            }
            log.current += entries
            state.writes += 1
            log.size += size
            state.logs[space] = log
            state.unsynced += entries.count
        }
    }

    public func entries(of space: SpaceID) -> AuditReplay {
        state.withLock { state in
            let log = state.logs[space] ?? Log()
            return AuditReplay(records: log.predecessor + log.current)
        }
    }

    /// Never: nothing but the store can remove a log in memory.
    public func wasRemoved(_ space: SpaceID) -> Bool { false }

    public func sync() {
        state.withLock { state in
            state.syncs += 1
            state.unsynced = 0
        }
    }

    public func closeLog(_ space: SpaceID) {}

    public func remove(_ space: SpaceID) {
        state.withLock { _ = $0.logs.removeValue(forKey: space) }
    }

    // MARK: - Test controls

    /// How many appends (writes, in a file) succeeded, whatever their number of entries.
    public var writeCount: Int { state.withLock { $0.writes } }

    /// How many times ``sync()`` ran.
    public var syncCount: Int { state.withLock { $0.syncs } }

    /// Entries appended since the last sync: what a crash now would lose.
    public var unsyncedCount: Int { state.withLock { $0.unsynced } }

    /// The spaces that have a log.
    public var spaces: [SpaceID] { state.withLock { Array($0.logs.keys) } }

    /// Makes the next `count` appends throw.
    public func failNextAppends(_ count: Int = 1) {
        state.withLock { $0.failures += count }
    }

    /// Replaces a space's whole log (tests that forge, reorder or move entries).
    public func setEntries(_ records: [[UInt8]], of space: SpaceID) {
        state.withLock { state in
            let size = records.reduce(AuditFraming.preamble.count) { $0 + $1.count + JournalFraming.frameOverhead }
            state.logs[space] = Log(current: records, size: size)
        }
    }
}
