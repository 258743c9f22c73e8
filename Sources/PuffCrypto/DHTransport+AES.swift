// SPDX-License-Identifier: Apache-2.0
import COpenSSL

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
        guard plaintext.count <= Int(Int32.max) - blockSize else { throw .library("plaintext too long") }
        // PKCS#7 always adds 1...16 bytes.
        let outputCount = (plaintext.count / blockSize + 1) * blockSize
        var ciphertext = [UInt8](repeating: 0, count: outputCount)
        var failure: CryptoError?
        ciphertext.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Void in
            do throws(CryptoError) {
                let written = try plaintext.withUnsafeBytes {
                    (input: UnsafeRawBufferPointer) throws(CryptoError) -> Int in
                    try run(.encrypt, input: input, key: key, iv: iv, output: output)
                }
                if written != outputCount { failure = .library("AES-128-CBC: unexpected ciphertext length") }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return ciphertext
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
        // Checked here rather than left to EVP so that every malformed input maps to one case.
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0, ciphertext.count <= Int(Int32.max) - blockSize
        else { throw .invalidCiphertext }

        var plaintextCount = 0
        // EVP may write up to one block more than it is given before it strips the padding; the
        // scratch buffer is sodium_malloc'd, so the plaintext never touches ordinary memory.
        let scratch = try SecureBytes(count: ciphertext.count + blockSize) {
            (output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void in
            plaintextCount = try withBytes(of: ciphertext) { (input: UnsafeRawBufferPointer) throws(CryptoError) in
                try run(.decrypt, input: input, key: key, iv: iv, output: output)
            }
        }
        return scratch.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SecureBytes in
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<plaintextCount]))
        }
    }

    // MARK: - EVP

    private enum Direction: Int32 {
        case decrypt = 0
        case encrypt = 1
    }

    /// One whole AES-128-CBC operation with PKCS#7 padding on (wraps `EVP_CipherInit_ex`,
    /// `EVP_CipherUpdate`, `EVP_CipherFinal_ex`); returns the number of bytes written to `output`.
    private static func run(
        _ direction: Direction,
        input: UnsafeRawBufferPointer,
        key: SecureBytes,
        iv: [UInt8],
        output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) -> Int {
        guard let outputBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .library("AES-128-CBC: missing output buffer")
        }
        // EVP_CIPHER_CTX_free cleanses the expanded key schedule.
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }

        let initialised = key.withUnsafeBytes { (keyBytes: UnsafeRawBufferPointer) -> Int32 in
            iv.withUnsafeBufferPointer { ivBytes in
                EVP_CipherInit_ex(
                    context,
                    EVP_aes_128_cbc(),
                    nil,
                    keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    ivBytes.baseAddress,
                    direction.rawValue
                )
            }
        }
        guard initialised == 1 else { throw .openSSL("EVP_CipherInit_ex") }
        // Padding is on by default; set it anyway so the PKCS#7 check cannot silently vanish.
        guard EVP_CIPHER_CTX_set_padding(context, 1) == 1 else { throw .openSSL("EVP_CIPHER_CTX_set_padding") }

        var updated: Int32 = 0
        // An empty plaintext has no base address; EVP needs only the final (padding) block then.
        if let inputBase = input.baseAddress?.assumingMemoryBound(to: UInt8.self), !input.isEmpty {
            guard EVP_CipherUpdate(context, outputBase, &updated, inputBase, Int32(input.count)) == 1 else {
                throw .openSSL("EVP_CipherUpdate")
            }
        }
        var finished: Int32 = 0
        guard EVP_CipherFinal_ex(context, outputBase + Int(updated), &finished) == 1 else {
            // On decryption the final block's padding is the only thing that can be wrong here.
            throw direction == .decrypt ? .invalidCiphertext : .openSSL("EVP_CipherFinal_ex")
        }
        return Int(updated) + Int(finished)
    }

    /// `Array.withUnsafeBytes` with a typed error; the standard library's version rethrows untyped.
    private static func withBytes<R>(
        of array: [UInt8],
        _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        let result = array.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<R, CryptoError> in
            do throws(CryptoError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
