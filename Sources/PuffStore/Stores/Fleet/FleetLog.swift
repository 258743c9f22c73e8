// SPDX-License-Identifier: Apache-2.0

/// A fleet collection as a shared store keeps it (docs/design/fleet.md §2): a header with a
/// version, and a log of entries 1, 2, 3 … each created once and never replaced. OpenBao's KV v2
/// is the real one (PuffOpenBao's `OpenBaoFleetLog`); unit tests use an in-memory one.
///
/// Every byte passed is sealed by Puff already: a log never sees a label, an attribute value or
/// a secret. Errors name the store's address and the path, never a token.
public protocol FleetLog: Sendable {
    /// Where the log lives, for messages (`https://bao.example:8200`, mount and prefix).
    var address: String { get }

    /// The kind of store keeping the log, as `puffctl status` names a fleet collection's store
    /// (`openbao`).
    var kindName: String { get }

    /// The names of the collections the log holds, in no particular order.
    ///
    /// - Throws: ``StoreError/unavailable(_:)``.
    func collections() async throws(StoreError) -> [String]

    /// The collection's header and its version, or nil when the log holds no such collection.
    ///
    /// - Throws: ``StoreError/unavailable(_:)``.
    func header(of collection: String) async throws(StoreError) -> (bytes: [UInt8], version: UInt64)?

    /// Writes the collection's header if its version is still `version` (0: creates it, refused
    /// when it exists).
    ///
    /// - Returns: The header's new version.
    /// - Throws: ``StoreError/staleGeneration(_:expected:current:)`` when another writer got there
    ///   first (nothing written), ``StoreError/unavailable(_:)``.
    func replaceHeader(_ bytes: [UInt8], of collection: String, expecting version: UInt64, space: SpaceID)
        async throws(StoreError) -> UInt64

    /// Entry `index` (from 1), or nil when there is none yet.
    ///
    /// - Throws: ``StoreError/unavailable(_:)``.
    func entry(_ index: UInt64, of collection: String) async throws(StoreError) -> [UInt8]?

    /// Creates entry `index`, which must not exist yet.
    ///
    /// - Throws: ``StoreError/staleGeneration(_:expected:current:)`` (expected `index - 1`)
    ///   when another writer created it first: nothing was written;
    ///   ``StoreError/unavailable(_:)``.
    func createEntry(_ index: UInt64, _ bytes: [UInt8], of collection: String, space: SpaceID)
        async throws(StoreError)
}
