// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// HKDF (RFC 5869) from libcrypto's `EVP_KDF` "HKDF" implementation.
enum HKDF {
    /// Derives `length` bytes with HKDF-SHA256 from `inputKeyMaterial`, with no salt (RFC 5869's
    /// default of hash-length zero bytes) and empty info, as secret-service.md §5.2 step 4 requires.
    ///
    /// - Returns: the output keying material in secure memory.
    /// - Throws: ``CryptoError/library(_:)`` if libcrypto fails or the input is empty.
    static func sha256(inputKeyMaterial: SecureBytes, length: Int) throws(CryptoError) -> SecureBytes {
        guard !inputKeyMaterial.isEmpty, length > 0 else { throw .library("HKDF: empty key material or output") }
        guard let kdf = EVP_KDF_fetch(nil, cString("HKDF"), nil) else { throw .openSSL("EVP_KDF_fetch(HKDF)") }
        defer { EVP_KDF_free(kdf) }
        // The context copies the key; EVP_KDF_CTX_free clears that copy (OPENSSL_clear_free).
        guard let context = EVP_KDF_CTX_new(kdf) else { throw .openSSL("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }

        return try SecureBytes(count: length) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void in
            try inputKeyMaterial.withUnsafeBytes { (key: UnsafeRawBufferPointer) throws(CryptoError) -> Void in
                guard let keyBase = key.baseAddress, let outputBase = output.baseAddress else {
                    throw .library("HKDF: missing buffer")
                }
                // No salt and no info parameter: absent salt is RFC 5869's zero salt, absent info is "".
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(cString("digest"), cString("SHA256"), 0),
                    OSSL_PARAM_construct_octet_string(
                        cString("key"),
                        UnsafeMutableRawPointer(mutating: keyBase),
                        key.count
                    ),
                    OSSL_PARAM_construct_end(),
                ]
                let status = parameters.withUnsafeMutableBufferPointer { parameterBuffer in
                    EVP_KDF_derive(
                        context,
                        outputBase.assumingMemoryBound(to: UInt8.self),
                        output.count,
                        parameterBuffer.baseAddress
                    )
                }
                guard status == 1 else { throw .openSSL("EVP_KDF_derive") }
            }
        }
    }

    /// A C string for a literal. OSSL_PARAM keeps the pointers it is given until the derive call,
    /// so they must outlive any one call; literal storage lives for the whole process. libcrypto
    /// never writes through these, despite the non-const `char *` in the parameter constructors.
    private static func cString(_ literal: StaticString) -> UnsafeMutablePointer<CChar> {
        UnsafeMutablePointer(mutating: UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self))
    }
}
