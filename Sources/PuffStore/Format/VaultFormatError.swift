// SPDX-License-Identifier: Apache-2.0

/// Why vault bytes could not be read as a header, record or catalog.
public enum VaultFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes at `offset` (from the start of the header or record) make no sense as `what`.
    case malformed(offset: UInt64, what: String)
    /// Written by a newer Puff; this version cannot read it.
    case unsupportedVersion(UInt16)
    /// A header slot of a type this version does not know: the header is refused whole, never read
    /// with the slot left out (a later write would drop it).
    case unsupportedSlotType(UInt8)
    /// A slotted header's MAC does not match under the master key a slot opened: the header was
    /// changed without the key (damage or tampering, not a wrong passcode).
    case unauthenticated

    public var description: String {
        switch self {
        case .malformed(let offset, let what): "malformed \(what) at byte \(offset)"
        case .unsupportedVersion(let version): "format version \(version) is newer than this puffd reads"
        case .unsupportedSlotType(let type): "unlock slot type \(type) is newer than this puffd reads"
        case .unauthenticated: "header does not authenticate"
        }
    }
}
