// SPDX-License-Identifier: Apache-2.0

/// How much a client can make the service hold or process (architecture.md Part A item 10). A
/// request over a limit fails with ``ServiceError/limitExceeded(_:)``, which names the limit;
/// nothing stored changes. `docs/limits.md` lists these with the binding's own limits.
public struct ServiceLimits: Sendable, Equatable {
    /// Bytes of UTF-8 in an item or collection label.
    public var labelBytes = 4096
    /// Attributes of one item, and pairs of one search query.
    public var attributesPerItem = 256
    /// Bytes of attribute names and values of one item, together.
    public var attributeBytesPerItem = 65_536
    /// Bytes of one secret, as stored (after transport decryption).
    public var secretBytes = 1_048_576
    /// Open sessions one client connection may hold.
    public var sessionsPerClient = 64
    /// Open sessions of all clients together.
    public var sessions = 4096
    /// Prompts one client connection may have waiting to complete.
    public var promptsPerClient = 64
    /// Waiting prompts of all clients together.
    public var prompts = 4096
    /// Items in one collection.
    public var itemsPerCollection = 1_000_000
    /// Collections clients can see, `session` and open hidden ones included; closed hidden ones
    /// are bounded apart, by the same number.
    public var collections = 256

    /// The default limits.
    public init() {}
}
