// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Appends and pulls: a fleet space's journal moves one log entry at a time, in the log's order.
extension FleetRecordStore {
    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await append(contentsOf: [record], to: space, head: head)
    }

    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        guard mapped(space) != nil else { return try await local.append(contentsOf: records, to: space, head: head) }
        _ = try await appendShared(records, to: space, head: head, expecting: nil)
    }

    /// For a fleet space, the log's next entry, then the local append, before returning a settled
    /// ticket at the new generation (one append at a time: the entry must exist before the local
    /// journal moves); otherwise the local store's queue.
    ///
    /// - Throws: ``StoreError/staleGeneration(_:expected:current:)`` when `generation` is not
    ///   the space's, or another writer created the entry first: nothing was written anywhere,
    ///   and a ``pull(_:)`` brings in what it missed. ``StoreError/unavailable(_:)`` when the log
    ///   cannot be reached: nothing was written. ``StoreError/writeFailed(_:)`` when the local
    ///   append failed after the entry was made: the entry stays in the log, and the next pull
    ///   brings it into the journal like another writer's.
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        guard mapped(space) != nil else {
            return try await local.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
        }
        return try await appendShared(records, to: space, head: head, expecting: generation)
    }

    private func appendShared(_ records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?)
        async throws(StoreError) -> AppendTicket
    {
        try await turn(space).run { () async throws(StoreError) -> AppendTicket in
            guard let share = mapped(space) else {
                return try await local.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
            }
            let current = share.generation
            if let generation, generation != current {
                throw .staleGeneration(space, expected: generation, current: current)
            }
            // Nothing to append makes no entry: the log never holds an empty one from here.
            guard !records.isEmpty else { return AppendTicket(settled: .success(()), generation: current) }
            let entry = FleetEntry(records: records, head: head).encoded()
            do throws(StoreError) {
                try await requireLog(for: share).createEntry(current + 1, entry, of: share.name, space: space)
            } catch .staleGeneration {
                throw .staleGeneration(space, expected: current, current: current + 1)
            }
            let ticket = try await local.enqueueAppend(contentsOf: records, to: space, head: head, expecting: nil)
            try await ticket.durable()
            try? await count(entries: 1, records: records.count, of: space)
            return AppendTicket(settled: .success(()), generation: current + 1, offset: ticket.offset)
        }
    }

    /// Brings the log's entries after the space's generation into its local journal, one local
    /// append per entry (records and head), counting each in the map as it lands. On the first
    /// pull since this store opened (or a restore), the journal is compared with the map first:
    /// records past the count are an append whose entry was made and whose count a crash lost,
    /// and are counted when they match the next entries rather than appended twice.
    ///
    /// - Returns: What landed, nil when nothing did or the space is not a fleet space. When an
    ///   entry after the first fails (unreachable log, bad entry, failed local append), what
    ///   landed before it is returned and the next pull meets the failure again.
    /// - Throws: ``StoreError/unavailable(_:)`` (nothing landed), ``StoreError/damaged(file:offset:reason:)``
    ///   for an entry that does not read (refused whole), ``StoreError/writeFailed(_:)``.
    public func pull(_ space: SpaceID) async throws(StoreError) -> PulledRecords? {
        guard mapped(space) != nil else { return nil }
        return try await turn(space).run { () async throws(StoreError) -> PulledRecords? in
            guard let share = mapped(space) else { return nil }
            let log = try requireLog(for: share)
            var uncounted = try await uncountedRecords(space, share)
            var pulled = PulledRecords(records: [], locators: [], head: nil, generation: share.generation)
            do throws(StoreError) {
                while let bytes = try await log.entry(pulled.generation + 1, of: share.name) {
                    let entry = try decode(bytes, index: pulled.generation + 1, of: share.name)
                    if !uncounted.isEmpty {
                        guard uncounted.starts(with: entry.records) else {
                            throw .writeFailed(
                                "the local journal of fleet collection \(share.name) (\(space.hex)) holds records "
                                    + "entry \(pulled.generation + 1) of the shared log does not")
                        }
                        uncounted.removeFirst(entry.records.count)
                    } else if !entry.records.isEmpty {
                        let ticket = try await local.enqueueAppend(
                            contentsOf: entry.records, to: space, head: entry.head, expecting: nil)
                        try await ticket.durable()
                        pulled.locators += try await locators(of: entry, appendedBy: ticket, to: space)
                        pulled.records += entry.records
                        pulled.head = entry.head ?? pulled.head
                    }
                    pulled.generation += 1
                    try? await count(entries: 1, records: entry.records.count, of: space)
                }
                guard uncounted.isEmpty else {
                    throw .writeFailed(
                        "the local journal of fleet collection \(share.name) (\(space.hex)) holds "
                            + "\(uncounted.count) records the shared log does not")
                }
                state.withLock { _ = $0.checked.insert(space) }
            } catch {
                if pulled.generation == share.generation { throw error }
            }
            return pulled.generation == share.generation ? nil : pulled
        }
    }

    /// The records of the space's journal past those the map counts, until a look finds none
    /// (the first pull since this store opened, as a rule); none afterwards.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` when the journal holds fewer (put back from an
    ///   older copy: the entries it lost would never come again).
    private func uncountedRecords(_ space: SpaceID, _ share: FleetMap.Share) async throws(StoreError) -> [[UInt8]] {
        guard !state.withLock({ $0.checked.contains(space) }) else { return [] }
        let records = try await local.replay(space).records
        guard UInt64(records.count) >= share.records else {
            throw .writeFailed(
                "the local journal of fleet collection \(share.name) (\(space.hex)) holds \(records.count) records, "
                    + "fewer than the \(share.records) its \(share.generation) entries brought (put back from an "
                    + "older copy?): set the collection aside and attach it again")
        }
        if UInt64(records.count) == share.records { state.withLock { _ = $0.checked.insert(space) } }
        return records.dropFirst(Int(share.records)).map(\.bytes)
    }

    /// Counts entries and records that landed in the space's journal, and writes the map. A
    /// failed map write does not fail what landed (it is durable in the log and the journal): the
    /// next change writes the map again, and a restart before it finds the records uncounted and
    /// counts them at its first pull.
    func count(entries: UInt64, records: Int, of space: SpaceID) async throws(StoreError) {
        state.withLock { state in
            state.map.shares[space]?.generation += entries
            state.map.shares[space]?.records += UInt64(records)
        }
        try await saveMap()
    }

    /// Entry `index` of `name`, read.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the entry.
    func decode(_ bytes: [UInt8], index: UInt64, of name: String) throws(StoreError) -> FleetEntry {
        do throws(VaultFormatError) {
            return try FleetEntry(decoding: bytes, format: VaultRecord.currentFormat)
        } catch {
            let offset: UInt64 = if case .malformed(let at, _) = error { at } else { 0 }
            throw .damaged(
                file: "entry \(index) of \(name) in \(log?.address ?? "the shared log")", offset: offset,
                reason: "\(error)")
        }
    }

    /// Where `entry`'s records landed: as the ticket says, or else found at the journal's end.
    private func locators(of entry: FleetEntry, appendedBy ticket: AppendTicket, to space: SpaceID)
        async throws(StoreError) -> [RecordLocator]
    {
        let sequences = entry.sequences(format: VaultRecord.currentFormat)
        if let found = ticket.locators(of: entry.records, sequences: sequences) { return found }
        let tail = try await local.replay(space).records.suffix(entry.records.count)
        return zip(tail, sequences).map { RecordLocator(offset: $0.offset, record: $0.bytes, sequence: $1) }
    }
}
