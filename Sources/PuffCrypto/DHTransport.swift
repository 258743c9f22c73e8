// SPDX-License-Identifier: Apache-2.0

/// The spec's `dh-ietf1024-sha256-aes128-cbc-pkcs7` transport (secret-service.md §5.2).
///
/// Key agreement is here; AES-128-CBC for the secrets themselves is in `DHTransport+AES.swift`.
public enum DHTransport {
    /// Bytes in an AES-128 key, an IV and a cipher block.
    public static let blockSize = 16

    /// Server side of `OpenSession`.
    ///
    /// Validates the peer key (leading zeros stripped, at most 128 bytes, `1 < Y < p-1`), picks a
    /// fresh private exponent from the CSPRNG, and derives the session key.
    ///
    /// - Parameter peerPublicKey: the client's `Yc`, unsigned big-endian, any length.
    /// - Returns: our public key `Ys` left-padded to exactly 128 bytes, and the 16-byte AES key
    ///   `HKDF-SHA256(IKM = Z left-padded to 128 bytes, no salt, empty info)`.
    /// - Throws: ``CryptoError/invalidPublicKey`` for a bad peer key; ``CryptoError/library(_:)``
    ///   if libcrypto fails.
    public static func agree(peerPublicKey: [UInt8]) throws(CryptoError) -> (publicKey: [UInt8], key: SecureBytes) {
        let group = try DHGroup()
        let peer = try validatedPeerKey(peerPublicKey, in: group)
        let exponent = try group.randomExponent()
        return try agree(peer: peer, exponent: exponent, in: group)
    }

    /// ``agree(peerPublicKey:)`` with a caller-chosen private exponent, for known-answer tests and
    /// for test clients that play the other side of the exchange.
    ///
    /// - Parameter privateExponent: unsigned big-endian; not range-checked.
    /// - Warning: Never use a fixed exponent for a real session.
    package static func agree(
        peerPublicKey: [UInt8],
        privateExponent: [UInt8]
    ) throws(CryptoError) -> (publicKey: [UInt8], key: SecureBytes) {
        let group = try DHGroup()
        let peer = try validatedPeerKey(peerPublicKey, in: group)
        let exponent = try BigNumber(bigEndian: privateExponent[...])
        return try agree(peer: peer, exponent: exponent, in: group)
    }

    /// `g^privateExponent mod p`, left-padded to 128 bytes: a test client's public key.
    package static func publicKey(privateExponent: [UInt8]) throws(CryptoError) -> [UInt8] {
        let group = try DHGroup()
        let exponent = try BigNumber(bigEndian: privateExponent[...])
        return try group.power(group.generator, exponent).paddedBytes(length: DHGroup.byteCount)
    }

    /// The shared secret `Z = peer^privateExponent mod p`, left-padded to 128 bytes, for
    /// known-answer tests of the padding rule (secret-service.md §5.2 step 3).
    package static func sharedSecret(
        peerPublicKey: [UInt8],
        privateExponent: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        let group = try DHGroup()
        let peer = try validatedPeerKey(peerPublicKey, in: group)
        let exponent = try BigNumber(bigEndian: privateExponent[...])
        return try sharedSecret(peer: peer, exponent: exponent, in: group)
    }

    /// The session key from an encoded shared secret: HKDF-SHA256, no salt, empty info, 16 bytes.
    package static func sessionKey(sharedSecret: SecureBytes) throws(CryptoError) -> SecureBytes {
        try HKDF.sha256(inputKeyMaterial: sharedSecret, length: blockSize)
    }

    // MARK: - Shared steps

    /// Parses and range-checks a peer public key.
    static func validatedPeerKey(
        _ bytes: [UInt8],
        in group: borrowing DHGroup
    ) throws(CryptoError) -> BigNumber {
        // Clients send minimal (libsecret, oo7), 128-byte (secretstorage) or sign-byte-prefixed
        // encodings, so only the value matters (secret-service.md §5.2 step 1).
        let significant = bytes.drop(while: { $0 == 0 })
        guard !significant.isEmpty, significant.count <= DHGroup.byteCount else { throw .invalidPublicKey }
        let value = try BigNumber(bigEndian: significant)
        guard group.isValidPublicKey(value) else { throw .invalidPublicKey }
        return value
    }

    private static func agree(
        peer: borrowing BigNumber,
        exponent: borrowing BigNumber,
        in group: borrowing DHGroup
    ) throws(CryptoError) -> (publicKey: [UInt8], key: SecureBytes) {
        let publicKey = try group.power(group.generator, exponent).paddedBytes(length: DHGroup.byteCount)
        let secret = try sharedSecret(peer: peer, exponent: exponent, in: group)
        return (publicKey, try sessionKey(sharedSecret: secret))
    }

    static func sharedSecret(
        peer: borrowing BigNumber,
        exponent: borrowing BigNumber,
        in group: borrowing DHGroup
    ) throws(CryptoError) -> SecureBytes {
        let shared = try group.power(peer, exponent)
        // Always 128 bytes: a minimal encoding breaks about 1 session in 256 (pass-secret-service #23).
        return try SecureBytes(count: DHGroup.byteCount) {
            (buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void in
            try shared.write(paddedTo: buffer)
        }
    }
}
