// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Making a fleet space: publishing one of this vault's spaces, or copying one from the log.
extension FleetRecordStore {
    /// Publishes `space` to the log as `name`: its header (created, never replacing one), then
    /// its whole journal and newest head as entry 1; the space is then a fleet space at
    /// generation 1. Call it holding the vault's write turn with no append in flight, so the
    /// journal published is the journal.
    ///
    /// A share cut short (unreachable log, crash) can be run again: a header and entry 1 that are
    /// byte for byte this space's are taken as its own.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` when the name is not valid, the space is shared
    ///   already, cannot be shared (hidden, damaged, a format 1 journal not written since), or the
    ///   log holds another collection of that name (attach it instead);
    ///   ``StoreError/unavailable(_:)``; ``StoreError/noSuchSpace(_:)``.
    public func share(_ space: SpaceID, as name: String) async throws(StoreError) {
        guard FleetMap.isValidName(name) else { throw .writeFailed(Self.nameRule(name)) }
        try await claiming.run { () async throws(StoreError) in
            if let share = mapped(space) {
                throw .writeFailed("\(space.hex) is a fleet collection already, shared as \(share.name)")
            }
            try refuseTaken(name)
            guard let log else { throw .unavailable("cannot share \(name): no shared store is configured") }
            let header = try await local.header(of: space)
            let decoded: VaultHeader
            do throws(VaultFormatError) {
                decoded = try VaultHeader(decoding: header)
            } catch {
                throw .writeFailed("cannot share \(space.hex): its header does not read (\(error))")
            }
            guard decoded.space == space, !decoded.flags.contains(.hidden) else {
                throw .writeFailed("cannot share \(space.hex): a hidden collection cannot be a fleet collection")
            }
            let journal = try await local.replay(space)
            guard journal.version == VaultRecord.currentFormat, journal.damaged.isEmpty else {
                throw .writeFailed(
                    "cannot share \(space.hex): its journal is damaged or not chained yet (repair it, or write to it once)"
                )
            }
            let entry = FleetEntry(records: journal.records.map(\.bytes), head: Self.newestHead(journal.heads))
            let taken = StoreError.writeFailed(
                "a collection named \(name) is kept in OpenBao at \(log.address) already: attach it instead")
            var version: UInt64
            do throws(StoreError) {
                version = try await log.replaceHeader(header, of: name, expecting: 0, space: space)
            } catch .staleGeneration {
                guard let found = try await log.header(of: name), found.bytes == header else { throw taken }
                version = found.version
            }
            do throws(StoreError) {
                try await log.createEntry(1, entry.encoded(), of: name, space: space)
            } catch .staleGeneration {
                guard try await log.entry(1, of: name) == entry.encoded() else { throw taken }
            }
            let share = FleetMap.Share(
                name: name, generation: 1, records: UInt64(entry.records.count), headerVersion: version)
            try await claim(space, share)
        }
    }

    /// Copies the log's collection `name` into this vault: its header, then every entry's records
    /// in one local append with the newest head; the space (the one its header names, the same
    /// on every machine: records' associated data binds it) is then a fleet space at the number
    /// of entries read. The caller adds it to the catalog.
    ///
    /// - Returns: The space.
    /// - Throws: ``StoreError/writeFailed(_:)`` when the name is not valid, is shared here
    ///   already, the log holds no such collection or none of its entries yet, or this vault
    ///   holds a space of that id; ``StoreError/damaged(file:offset:reason:)`` for a header or
    ///   entry that does not read (nothing is written); ``StoreError/unavailable(_:)``.
    public func attach(_ name: String) async throws(StoreError) -> SpaceID {
        guard FleetMap.isValidName(name) else { throw .writeFailed(Self.nameRule(name)) }
        return try await claiming.run { () async throws(StoreError) -> SpaceID in
            try refuseTaken(name)
            guard let log else { throw .unavailable("cannot attach \(name): no shared store is configured") }
            guard let found = try await log.header(of: name) else {
                throw .writeFailed("OpenBao at \(log.address) holds no collection named \(name)")
            }
            let (header, version) = (found.bytes, found.version)
            let space: SpaceID
            do throws(VaultFormatError) {
                space = try VaultHeader(decoding: header).space
            } catch {
                throw .damaged(file: "the header of \(name) in \(log.address)", offset: 0, reason: "\(error)")
            }
            let existing = try await local.spaces()
            guard mapped(space) == nil, !existing.contains(space) else {
                throw .writeFailed("this vault holds the collection \(name) already (\(space.hex))")
            }
            var records: [[UInt8]] = []
            var head: [UInt8]?
            var count: UInt64 = 0
            while let bytes = try await log.entry(count + 1, of: name) {
                let entry = try decode(bytes, index: count + 1, of: name)
                records += entry.records
                head = entry.head ?? head
                count += 1
            }
            guard count > 0 else {
                throw .writeFailed(
                    "\(name) in OpenBao at \(log.address) has no entries yet: its share did not finish; "
                        + "run it again on the machine that shared it")
            }
            let share = FleetMap.Share(
                name: name, generation: count, records: UInt64(records.count), headerVersion: version)
            do throws(StoreError) {
                try await local.replaceHeader(header, of: space)
                if !records.isEmpty { try await local.append(contentsOf: records, to: space, head: head) }
                try await claim(space, share)
            } catch {
                // Half a copy would make the next attach refuse "holds it already".
                try? await local.remove(space)
                throw error
            }
            return space
        }
    }

    /// Puts `share` in the map and writes it; a failed write takes it out again, so the map in
    /// memory never claims what the file does not.
    private func claim(_ space: SpaceID, _ share: FleetMap.Share) async throws(StoreError) {
        try await turn(space).run { () async throws(StoreError) in
            state.withLock { state in
                state.map.shares[space] = share
                state.checked.insert(space)
            }
            do throws(StoreError) {
                try await saveMap()
            } catch {
                state.withLock { _ = $0.map.shares.removeValue(forKey: space) }
                throw error
            }
        }
    }

    /// Refuses a name the map holds already.
    private func refuseTaken(_ name: String) throws(StoreError) {
        if let space = state.withLock({ $0.map.space(named: name) }) {
            throw .writeFailed("\(name) is a fleet collection of this vault already (\(space.hex))")
        }
    }

    /// Why `name` cannot name a fleet collection.
    static func nameRule(_ name: String) -> String {
        "\"\(name)\" cannot name a fleet collection: use 1 to 128 of A-Z a-z 0-9 . _ - (not starting with a dot)"
    }

    /// The head slot naming the highest sequence, by its clear fields (the reader authenticates it).
    static func newestHead(_ heads: [[UInt8]]) -> [UInt8]? {
        heads.compactMap { bytes in (try? JournalHead(decoding: bytes)).map { (bytes, $0.sequence) } }
            .max { $0.1 < $1.1 }?.0
    }
}
