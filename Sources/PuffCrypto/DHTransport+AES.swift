// SPDX-License-Identifier: Apache-2.0

extension DHTransport {
    /// Encrypts one secret for the bus: AES-128-CBC with PKCS#7 padding under a fresh random IV.
    ///
    /// - Parameters:
    ///   - plaintext: the secret; an empty one encrypts to a single block of padding.
    ///   - key: the 16-byte session key from ``agree(peerPublicKey:)``.
    /// - Returns: the IV (the Secret's `parameters`) and the ciphertext (its `value`).
    /// - Throws: ``CryptoError/invalidParameters`` for a key that is not 16 bytes;
    ///   ``CryptoError/library(_:)`` if libcrypto fails.
    public static func encrypt(
        _ plaintext: SecureBytes,
        key: SecureBytes
    ) throws(CryptoError) -> (iv: [UInt8], ciphertext: [UInt8]) {
        // A fresh IV per secret, as gnome-keyring does (secret-service.md §5.2 step 5).
        let iv = SecureRandom.bytes(blockSize)
        return (iv, try encrypt(plaintext, key: key, iv: iv))
    }

    /// ``encrypt(_:key:)`` with a caller-chosen IV, for known-answer tests.
    ///
    /// - Warning: Reusing an IV under one key leaks which secrets share a prefix.
    package static func encrypt(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        iv: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard iv.count == blockSize, key.count == blockSize else { throw .invalidParameters }
        return try AESCBC.encrypt(plaintext, key: key, iv: iv, padding: .pkcs7)
    }

    /// Decrypts one secret from the bus and checks its padding.
    ///
    /// - Parameters:
    ///   - ciphertext: the Secret's `value`; must be a non-zero multiple of 16 bytes.
    ///   - iv: the Secret's `parameters`; must be exactly 16 bytes.
    ///   - key: the 16-byte session key.
    /// - Returns: the plaintext in secure memory.
    /// - Throws: ``CryptoError/invalidParameters`` for a bad IV (or key) length;
    ///   ``CryptoError/invalidCiphertext`` for a bad length or bad padding, which is also what a
    ///   wrong key almost always produces; ``CryptoError/library(_:)`` if libcrypto fails.
    public static func decrypt(ciphertext: [UInt8], iv: [UInt8], key: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard iv.count == blockSize, key.count == blockSize else { throw .invalidParameters }
        return try AESCBC.decrypt(ciphertext, key: key, iv: iv, padding: .pkcs7)
    }
}
