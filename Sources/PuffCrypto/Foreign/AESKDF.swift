// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// KeePass's AES-KDF (KDBX 3.1, and KDBX 4 databases that chose it): the 32-byte composite key
/// encrypted `rounds` times with AES-256-ECB under the header's seed, then SHA-256 of the result.
public enum AESKDF {
    /// How many rounds go between two calls of a transform's `counting`.
    public static let countingStride: UInt64 = 1 << 16

    /// The transformed key, in secure memory. `counting` is told the rounds done so far, every
    /// ``countingStride`` rounds and at the end.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a key or seed that is not 32 bytes;
    ///   ``CryptoError/library(_:)`` if libcrypto fails.
    public static func transform(
        _ key: SecureBytes, seed: SecureBytes, rounds: UInt64, counting: ((UInt64) -> Void)? = nil
    ) throws(CryptoError) -> SecureBytes {
        guard key.count == 32, seed.count == 32 else { throw .invalidParameters }
        let rounded = try SecureBytes(count: 32) { (state: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            key.withUnsafeBytes { state.copyMemory(from: $0) }
            guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
            // EVP_CIPHER_CTX_free cleanses the expanded key schedule.
            defer { EVP_CIPHER_CTX_free(context) }
            let initialised = seed.withUnsafeBytes { (seedBytes: UnsafeRawBufferPointer) -> Int32 in
                EVP_EncryptInit_ex(
                    context, EVP_aes_256_ecb(), nil, seedBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil)
            }
            guard initialised == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else {
                throw .openSSL("EVP_EncryptInit_ex")
            }
            guard let bytes = state.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .invalidParameters }
            var written: Int32 = 0
            // ECB encrypts each block on its own, so one in-place update of both blocks is one round.
            var done: UInt64 = 0
            while done < rounds {
                let stride = min(countingStride, rounds - done)
                for _ in 0..<stride {
                    guard EVP_EncryptUpdate(context, bytes, &written, bytes, 32) == 1, written == 32 else {
                        throw .openSSL("EVP_EncryptUpdate")
                    }
                }
                done += stride
                counting?(done)
            }
        }
        return try ForeignDigest.hash(.sha256, secret: [rounded])
    }
}
