// SPDX-License-Identifier: Apache-2.0

/// Why a ``VaultBackend`` could not load or commit.
///
/// Messages name the failing operation only, never record contents.
public enum StoreError: Error, Equatable, Sendable {
    /// The stored data could not be read.
    case readFailed(String)
    /// The batch was not written; nothing of it is visible.
    case writeFailed(String)
    /// The batch contradicts the stored data (for example an item for a missing collection).
    case invalidChange(String)
}

extension StoreError: CustomStringConvertible {
    /// A short developer-facing description.
    public var description: String {
        switch self {
        case .readFailed(let why): "vault read failed: \(why)"
        case .writeFailed(let why): "vault write failed: \(why)"
        case .invalidChange(let why): "invalid vault change: \(why)"
        }
    }
}
