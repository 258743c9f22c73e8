// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// Hashes, HMAC and PBKDF2 through libcrypto, as other stores' file formats define them
/// (gnome-keyring's iterated SHA-256 and MD5 check, libsecret's PBKDF2 and HMAC-SHA256, KDBX's
/// SHA-256/SHA-512 and HMAC-SHA256). Puff's own vault uses libsodium instead.
public enum ForeignDigest {
    /// The hash functions those formats use.
    public enum Algorithm: Sendable {
        case md5, sha256, sha512

        /// The digest's length in bytes.
        public var length: Int {
            switch self {
            case .md5: 16
            case .sha256: 32
            case .sha512: 64
            }
        }

        fileprivate var evp: OpaquePointer? {
            switch self {
            case .md5: EVP_md5()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        }

        fileprivate var name: String {
            switch self {
            case .md5: "MD5"
            case .sha256: "SHA256"
            case .sha512: "SHA512"
            }
        }
    }

    /// The digest of `parts` concatenated, in secure memory: for digests that are keys.
    ///
    /// - Throws: ``CryptoError/library(_:)`` if libcrypto fails.
    public static func hash(_ algorithm: Algorithm, secret parts: [SecureBytes]) throws(CryptoError) -> SecureBytes {
        try SecureBytes(count: algorithm.length) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            guard let context = EVP_MD_CTX_new() else { throw .openSSL("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else { throw .openSSL("EVP_DigestInit_ex") }
            for part in parts {
                let updated = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
                guard updated == 1 else { throw .openSSL("EVP_DigestUpdate") }
            }
            var written: UInt32 = 0
            let finished = EVP_DigestFinal_ex(
                context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
            guard finished == 1, Int(written) == algorithm.length else { throw .openSSL("EVP_DigestFinal_ex") }
        }
    }

    /// The digest of `bytes`, for digests that are not secret (checksums, attribute hashes).
    public static func hash(_ algorithm: Algorithm, _ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try hash(algorithm, secret: [SecureBytes(unwipedCopyOf: bytes)]).unprotectedArray()
    }

    /// HMAC of `parts` concatenated under `key` with `algorithm` (RFC 2104).
    ///
    /// - Throws: ``CryptoError/library(_:)`` if libcrypto fails.
    public static func hmac(_ algorithm: Algorithm, key: SecureBytes, _ parts: [[UInt8]]) throws(CryptoError) -> [UInt8]
    {
        let message = parts.flatMap { $0 }
        var output = [UInt8](repeating: 0, count: algorithm.length)
        var written = 0
        let status = key.withUnsafeBytes { (keyBytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8>? in
            message.withUnsafeBytes { (data: UnsafeRawBufferPointer) in
                output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
                    EVP_Q_mac(
                        nil, "HMAC", nil, algorithm.name, nil, keyBytes.baseAddress, keyBytes.count,
                        data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &written)
                }
            }
        }
        guard status != nil, written == algorithm.length else { throw .openSSL("EVP_Q_mac(HMAC)") }
        return output
    }

    /// PBKDF2 with HMAC-`algorithm` (RFC 8018), into secure memory.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a count or length that is not positive;
    ///   ``CryptoError/library(_:)`` if libcrypto fails.
    public static func pbkdf2(
        _ algorithm: Algorithm, passcode: SecureBytes, salt: [UInt8], iterations: Int, length: Int
    ) throws(CryptoError) -> SecureBytes {
        guard iterations > 0, iterations <= Int(Int32.max), length > 0, length <= 1024 else {
            throw .invalidParameters
        }
        return try SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            let status = passcode.withUnsafeBytes { (pass: UnsafeRawBufferPointer) -> Int32 in
                salt.withUnsafeBytes { (saltBytes: UnsafeRawBufferPointer) in
                    PKCS5_PBKDF2_HMAC(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(pass.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(saltBytes.count),
                        Int32(iterations), algorithm.evp, Int32(length),
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
            guard status == 1 else { throw .openSSL("PKCS5_PBKDF2_HMAC") }
        }
    }
}
