// SPDX-License-Identifier: Apache-2.0

/// Persists one vault's records. Chosen by configuration (architecture.md Part A §4); the encrypted
/// file vault plugs in behind this same protocol later.
public protocol VaultBackend: Sendable {
    /// Name used in configuration, for example `"memory"` or `"file"`.
    static var kind: String { get }

    /// Reads every record.
    ///
    /// - Throws: ``StoreError`` when the vault cannot be read.
    func load() async throws -> VaultSnapshot

    /// Applies `changes` atomically: afterwards either all of them are durable or none is.
    ///
    /// - Throws: ``StoreError`` when the batch was not applied.
    func commit(_ changes: [RecordChange]) async throws
}
