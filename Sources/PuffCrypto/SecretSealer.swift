// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Seals secrets with XChaCha20-Poly1305 under one key held in locked memory (wraps libsodium's
/// `crypto_aead_xchacha20poly1305_ietf_*`), so that stored secrets rest as ciphertext in ordinary
/// memory and are opened into a short-lived ``SecureBytes`` only for the call that needs them
/// (architecture.md Part A item 8).
///
/// A sealed value is `nonce (24 bytes) ‖ ciphertext ‖ tag (16 bytes)`. The associated data binds it
/// to where it belongs (for example an item's id), so a sealed value moved elsewhere fails to open.
public struct SecretSealer: Sendable {
    /// Bytes a sealed value adds to its plaintext: nonce plus tag.
    public static let overhead = nonceBytes + tagBytes
    static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    private let key: SecureBytes

    /// A sealer with a fresh random key (wraps `crypto_aead_xchacha20poly1305_ietf_keygen`).
    public init() {
        _ = Sodium.ready
        key = SecureBytes(count: Self.keyBytes) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            crypto_aead_xchacha20poly1305_ietf_keygen(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// A sealer over an existing 32-byte key.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` when the key is not 32 bytes.
    public init(key: SecureBytes) throws(CryptoError) {
        guard key.count == Self.keyBytes else { throw .invalidParameters }
        self.key = key
    }

    /// Seals `plaintext` with a fresh random nonce.
    public func seal(_ plaintext: SecureBytes, associatedData: [UInt8]) -> [UInt8] {
        CryptoCounts.noteSeal()
        let nonce = SecureRandom.bytes(Self.nonceBytes)
        var sealed = [UInt8](repeating: 0, count: Self.nonceBytes + plaintext.count + Self.tagBytes)
        sealed.withUnsafeMutableBufferPointer { out in
            out.baseAddress!.update(from: nonce, count: Self.nonceBytes)
            plaintext.withUnsafeBytes { message in
                key.withUnsafeBytes { keyBytes in
                    associatedData.withUnsafeBufferPointer { ad in
                        var written: UInt64 = 0
                        // Cannot fail for inputs below libsodium's 2^64-byte bound.
                        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                            out.baseAddress! + Self.nonceBytes, &written,
                            message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                            ad.baseAddress, UInt64(ad.count), nil, nonce,
                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        return sealed
    }

    /// Opens a value made by ``seal(_:associatedData:)`` with the same key and associated data.
    ///
    /// - Throws: ``CryptoError/invalidCiphertext`` when the value is too short, was altered, or
    ///   belongs to another key or associated data.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> SecureBytes {
        guard sealed.count >= Self.overhead else { throw .invalidCiphertext }
        let plaintextCount = sealed.count - Self.overhead
        return try SecureBytes(count: plaintextCount) { (out: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            let status = sealed.withUnsafeBufferPointer { input in
                key.withUnsafeBytes { keyBytes in
                    associatedData.withUnsafeBufferPointer { ad in
                        var written: UInt64 = 0
                        // An empty plaintext has no buffer; libsodium then only verifies the tag.
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, nil,
                            input.baseAddress! + Self.nonceBytes, UInt64(input.count - Self.nonceBytes),
                            ad.baseAddress, UInt64(ad.count), input.baseAddress!,
                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
            guard status == 0 else { throw .invalidCiphertext }
        }
    }
}
