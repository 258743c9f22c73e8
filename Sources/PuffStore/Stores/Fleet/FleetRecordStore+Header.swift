// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A fleet space's header moving between machines (docs/design/fleet.md §5): a slot change on one
/// replaces the log's header compare-and-set (``replaceHeader(_:of:)``); the others read it here
/// when its version is past the one they took last, and take it once the service checked it with
/// the collection's key. The store never judges a header: it holds no key.
extension FleetRecordStore {
    /// The log's header of a fleet space when its version is past the map's (the version this
    /// vault wrote or took last); nil when it is not, the log holds none, or the space is not a
    /// fleet space.
    ///
    /// - Throws: ``StoreError/unavailable(_:)``.
    public func sharedHeader(of space: SpaceID) async throws(StoreError) -> SharedHeader? {
        guard let share = mapped(space) else { return nil }
        guard let found = try await requireLog(for: share).header(of: share.name) else { return nil }
        guard found.version > share.headerVersion else { return nil }
        return SharedHeader(bytes: found.bytes, version: found.version)
    }

    /// Writes `header` as the space's local header and notes its version in the map, in the
    /// space's turn, unless the map holds that version or a later one already (this vault wrote
    /// or took one since it was read).
    ///
    /// The local header is replaced first, as the file store replaces any header (a temporary
    /// file renamed over it: the old or the new one after a crash), then the map. A crash or a
    /// failed map write between the two leaves the new header with the old version noted: the
    /// next look finds the same header newer again, and taking it again changes nothing.
    ///
    /// - Returns: Whether it was taken.
    /// - Throws: ``StoreError/writeFailed(_:)`` when the local header could not be written (the
    ///   old one is in place, the map unchanged).
    public func adoptHeader(_ header: SharedHeader, of space: SpaceID) async throws(StoreError) -> Bool {
        guard mapped(space) != nil else { return false }
        return try await turn(space).run { () async throws(StoreError) -> Bool in
            guard let share = mapped(space), header.version > share.headerVersion else { return false }
            try await local.replaceHeader(header.bytes, of: space)
            state.withLock { $0.map.shares[space]?.headerVersion = header.version }
            try? await saveMap()
            return true
        }
    }
}
