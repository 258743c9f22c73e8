// SPDX-License-Identifier: Apache-2.0

/// Why a ``RecordStore`` could not read or write.
///
/// Messages name the failing operation, file and offset only, never record contents.
public enum StoreError: Error, Equatable, Sendable {
    /// The stored data could not be read.
    case readFailed(String)
    /// The write did not happen; what was durable before is still readable.
    case writeFailed(String)
    /// The bytes at `offset` of `file` fail their checksum or make no sense: not a torn tail, so
    /// nothing is cut off; the collection is reported damaged.
    case damaged(file: String, offset: UInt64, reason: String)
    /// Another `puffd` holds the vault's lock.
    case busy(String)
    /// The space does not exist.
    case noSuchSpace(SpaceID)
}

extension StoreError: CustomStringConvertible {
    /// A short developer-facing description.
    public var description: String {
        switch self {
        case .readFailed(let why): "vault read failed: \(why)"
        case .writeFailed(let why): "vault write failed: \(why)"
        case .damaged(let file, let offset, let reason): "\(file) is damaged at offset \(offset): \(reason)"
        case .busy(let why): "vault busy: \(why)"
        case .noSuchSpace(let space): "no collection files named \(space.hex)"
        }
    }
}
