// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// A ``FleetLog`` in process memory, as OpenBao's KV v2 keeps one (docs/design/fleet.md §2): a
/// header with a version replaced compare-and-set, and entries each created once. Two
/// `FleetRecordStore`s over it are two machines sharing a collection. It can be made unreachable
/// (every request then throws ``StoreError/unavailable(_:)`` and changes nothing), counts the
/// requests it was sent, and lets a test write what an operator of the store could.
public actor MemoryFleetLog: FleetLog {
    public nonisolated let address: String
    /// `"memory"`.
    public nonisolated var kindName: String { "memory" }

    private var headers: [String: (bytes: [UInt8], version: UInt64)] = [:]
    private var entries: [String: [UInt64: [UInt8]]] = [:]
    private var reachable = true
    /// Requests sent, answered or not.
    public private(set) var requests = 0

    /// An empty log that names itself `address` in messages.
    public init(address: String = "memory-fleet") {
        self.address = address
    }

    /// Makes every later request fail as unreachable (false) or be answered again (true).
    public func setReachable(_ reachable: Bool) {
        self.reachable = reachable
    }

    /// Writes entry `index` of `collection` as it is, created or replaced: what an operator of
    /// the store (or a forger with its token) could do.
    public func plant(entry bytes: [UInt8], at index: UInt64, of collection: String) {
        entries[collection, default: [:]][index] = bytes
    }

    /// Writes `collection`'s header as it is, without compare-and-set, as a new version: what an
    /// operator of the store (or a forger with its token) could do.
    ///
    /// - Returns: Its version.
    @discardableResult
    public func plant(header bytes: [UInt8], of collection: String) -> UInt64 {
        let version = (headers[collection]?.version ?? 0) + 1
        headers[collection] = (bytes, version)
        return version
    }

    /// `collection`'s header and version as the log holds them, without counting a request.
    public func storedHeader(of collection: String) -> (bytes: [UInt8], version: UInt64)? {
        headers[collection]
    }

    /// How many entries `collection` holds.
    public func entryCount(of collection: String) -> Int {
        entries[collection]?.count ?? 0
    }

    private func answer() throws(StoreError) {
        requests += 1
        guard reachable else { throw .unavailable("\(address) cannot be reached (a test made it unreachable)") }
    }

    public func collections() throws(StoreError) -> [String] {
        try answer()
        return Array(headers.keys)
    }

    public func header(of collection: String) throws(StoreError) -> (bytes: [UInt8], version: UInt64)? {
        try answer()
        return headers[collection]
    }

    public func replaceHeader(_ bytes: [UInt8], of collection: String, expecting version: UInt64, space: SpaceID)
        throws(StoreError) -> UInt64
    {
        try answer()
        let current = headers[collection]?.version ?? 0
        guard current == version else { throw .staleGeneration(space, expected: version, current: current) }
        headers[collection] = (bytes, current + 1)
        return current + 1
    }

    public func entry(_ index: UInt64, of collection: String) throws(StoreError) -> [UInt8]? {
        try answer()
        return entries[collection]?[index]
    }

    public func createEntry(_ index: UInt64, _ bytes: [UInt8], of collection: String, space: SpaceID)
        throws(StoreError)
    {
        try answer()
        guard entries[collection]?[index] == nil else {
            let highest = entries[collection]?.keys.max() ?? 0
            throw .staleGeneration(space, expected: index - 1, current: highest)
        }
        entries[collection, default: [:]][index] = bytes
    }
}
