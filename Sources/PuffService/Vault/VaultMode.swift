// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// How the service keeps collection keys.
public enum VaultMode: Sendable {
    /// Each collection has a passcode; new passcodes are derived with `kdf` (Argon2id).
    case persistent(kdf: KDFParameters)
    /// `puffd --ephemeral`: collections live under random keys kept in memory, no passcode, and
    /// a `login` collection exists from the start (the behaviour before the vault, in one flag).
    case ephemeral

    /// The KDF parameters new passcodes get.
    var kdf: KDFParameters {
        switch self {
        case .persistent(let kdf): kdf
        case .ephemeral: .interactive
        }
    }
}
