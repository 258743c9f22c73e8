// SPDX-License-Identifier: Apache-2.0

/// How items are classified and when a new one replaces an old one (`[items]` in `puffd.toml`).
public struct ItemRules: Sendable {
    /// The active schema mappers.
    public var mappers: SchemaMappers
    /// Whether an internet password is unique per server, user, protocol and port within a
    /// collection, a second `CreateItem` with the same key replacing the first (as the Keychain
    /// keeps one internet password per key). Off by default: then only the identical attribute
    /// set is replaced.
    public var uniqueInternet: Bool

    /// The defaults: every mapper, no uniqueness rule.
    public init(mappers: SchemaMappers = .standard, uniqueInternet: Bool = false) {
        self.mappers = mappers
        self.uniqueInternet = uniqueInternet
    }
}
