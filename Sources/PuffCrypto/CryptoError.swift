// SPDX-License-Identifier: Apache-2.0

/// Errors from PuffCrypto. Messages never contain key or secret bytes.
public enum CryptoError: Error, Equatable, Sendable {
    /// The peer's DH public key is empty, longer than 128 bytes after stripping leading zeros, or not
    /// in `1 < Y < p-1` (secret-service.md §5.2 step 1).
    case invalidPublicKey
    /// The IV is not exactly 16 bytes (or, a caller bug, the AES key is not 16 bytes).
    case invalidParameters
    /// The ciphertext is empty, not a multiple of 16 bytes, or has bad PKCS#7 padding.
    ///
    /// One case for all three on purpose: telling them apart would hand a padding oracle to the peer.
    case invalidCiphertext
    /// The random number generator could not deliver bytes.
    case randomFailure
    /// A sealed value did not open: wrong key or passcode, other associated data, or altered bytes.
    case wrongKey
    /// An unexpected libcrypto or libsodium failure, described without secret data.
    case library(String)
}

extension CryptoError: CustomStringConvertible {
    /// A short developer-facing description; never includes key, secret or plaintext bytes.
    public var description: String {
        switch self {
        case .invalidPublicKey: "invalid DH public key"
        case .invalidParameters: "invalid transfer parameters (IV must be 16 bytes)"
        case .invalidCiphertext: "invalid ciphertext"
        case .randomFailure: "random number generator failure"
        case .wrongKey: "the key does not open this value"
        case .library(let what): "crypto library failure: \(what)"
        }
    }

    /// The error for a libcrypto call that reported failure; names the function, nothing else.
    static func openSSL(_ function: String) -> CryptoError {
        .library("\(function) failed")
    }
}
