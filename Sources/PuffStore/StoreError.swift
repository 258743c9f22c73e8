// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Why a ``RecordStore`` could not read or write.
///
/// Messages name the failing operation, file and offset only, never record contents.
public enum StoreError: Error, Equatable, Sendable {
    /// The stored data could not be read.
    case readFailed(String)
    /// The write did not happen; what was durable before is still readable.
    case writeFailed(String)
    /// The file system refused a write at `path` for a reason the person can fix (full, over
    /// quota, read-only, not writable); what was durable before is still readable.
    case refused(WriteRefusal, path: String)
    /// The bytes at `offset` of `file` fail their checksum or make no sense: not a torn tail, so
    /// nothing is cut off; the collection is reported damaged.
    case damaged(file: String, offset: UInt64, reason: String)
    /// Another `puffd` holds the vault's lock.
    case busy(String)
    /// The space does not exist.
    case noSuchSpace(SpaceID)
    /// An append expected the space's journal at generation `expected`, but it is at `current`:
    /// it changed since the caller last saw it (a failed append, or another writer), so the
    /// records would not follow what is there. Nothing was written.
    case staleGeneration(SpaceID, expected: UInt64, current: UInt64)
    /// A shared store (OpenBao, docs/design/fleet.md) could not be reached or refused the
    /// request; the message names its address and why, never a token or a record. Nothing was
    /// written there; what the local cache holds is still readable.
    case unavailable(String)
}

extension StoreError: CustomStringConvertible {
    /// A short developer-facing description.
    public var description: String {
        switch self {
        case .readFailed(let why): "vault read failed: \(why)"
        case .writeFailed(let why): "vault write failed: \(why)"
        case .refused(let why, let path): "vault write failed: cannot write \(path): \(why)"
        case .damaged(let file, let offset, let reason): "\(file) is damaged at offset \(offset): \(reason)"
        case .busy(let why): "vault busy: \(why)"
        case .noSuchSpace(let space): "no collection files named \(space.hex)"
        case .staleGeneration(let space, let expected, let current):
            "the journal of \(space.hex) is at generation \(current), not \(expected): it changed since it was read"
        case .unavailable(let why): "the shared store is unavailable: \(why)"
        }
    }
}

/// Why the file system refused a vault write, for the causes the person can fix.
public enum WriteRefusal: Sendable, Equatable, CustomStringConvertible {
    /// `ENOSPC`: the file system is full.
    case noSpace
    /// `EDQUOT`: the user's disk quota is used up.
    case quotaExceeded
    /// `EROFS`: the file system is mounted read-only.
    case readOnly
    /// `EACCES`, `EPERM`: the vault folder or file may not be written by this user.
    case notPermitted

    /// The refusal an `errno` value stands for; nil for any other failure.
    public init?(errno code: Int32) {
        switch code {
        case ENOSPC: self = .noSpace
        case EDQUOT: self = .quotaExceeded
        case EROFS: self = .readOnly
        case EACCES, EPERM: self = .notPermitted
        default: return nil
        }
    }

    /// What `strerror` says, in words of its own.
    public var description: String {
        switch self {
        case .noSpace: "no space left on device"
        case .quotaExceeded: "disk quota exceeded"
        case .readOnly: "read-only file system"
        case .notPermitted: "permission denied"
        }
    }
}
