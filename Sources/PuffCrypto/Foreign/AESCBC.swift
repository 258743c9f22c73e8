// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// AES in CBC mode through libcrypto, for the Secret Service transport (secret-service.md §5.2)
/// and for other stores' file formats (gnome-keyring, libsecret's file backend, KDBX), never for
/// Puff's own vault, which libsodium seals.
public enum AESCBC {
    /// The AES block size, which is also the IV's size.
    public static let blockSize = 16

    /// Whether the last block carries PKCS#7 padding, or the input is whole blocks already.
    public enum Padding: Sendable { case pkcs7, none }

    /// Encrypts `plaintext` under `key` (16 bytes: AES-128; 32 bytes: AES-256).
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a key or IV of the wrong size, or (with
    ///   ``Padding/none``) a plaintext that is not whole blocks.
    public static func encrypt(
        _ plaintext: SecureBytes, key: SecureBytes, iv: [UInt8], padding: Padding
    ) throws(CryptoError) -> [UInt8] {
        guard padding == .pkcs7 || plaintext.count % blockSize == 0 else { throw .invalidParameters }
        guard plaintext.count <= Int(Int32.max) - blockSize else { throw .library("plaintext too long") }
        let outputCount = padding == .pkcs7 ? (plaintext.count / blockSize + 1) * blockSize : plaintext.count
        var ciphertext = [UInt8](repeating: 0, count: outputCount)
        var failure: CryptoError?
        ciphertext.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Void in
            do throws(CryptoError) {
                let written = try plaintext.withUnsafeBytes {
                    (input: UnsafeRawBufferPointer) throws(CryptoError) -> Int in
                    try run(.encrypt, input: input, key: key, iv: iv, padding: padding, output: output)
                }
                if written != outputCount { failure = .library("AES-CBC: unexpected ciphertext length") }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return ciphertext
    }

    /// Decrypts `ciphertext` into secure memory and, with ``Padding/pkcs7``, checks and strips
    /// the padding.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a key or IV of the wrong size;
    ///   ``CryptoError/invalidCiphertext`` for a length that is not whole blocks or bad padding
    ///   (one case for both: telling them apart would be a padding oracle).
    public static func decrypt(
        _ ciphertext: [UInt8], key: SecureBytes, iv: [UInt8], padding: Padding
    ) throws(CryptoError) -> SecureBytes {
        guard ciphertext.count % blockSize == 0, ciphertext.count <= Int(Int32.max) - blockSize,
            padding == .none || !ciphertext.isEmpty
        else { throw .invalidCiphertext }
        var plaintextCount = 0
        // EVP may write up to one block more than it is given before it strips the padding; the
        // scratch buffer is sodium_malloc'd, so the plaintext never touches ordinary memory.
        let scratch = try SecureBytes(count: ciphertext.count + blockSize) {
            (output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void in
            plaintextCount = try withBytes(of: ciphertext) { (input: UnsafeRawBufferPointer) throws(CryptoError) in
                try run(.decrypt, input: input, key: key, iv: iv, padding: padding, output: output)
            }
        }
        return scratch.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> SecureBytes in
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<plaintextCount]))
        }
    }

    private enum Direction: Int32 {
        case decrypt = 0
        case encrypt = 1
    }

    /// One whole AES-CBC operation (`EVP_CipherInit_ex`, `EVP_CipherUpdate`, `EVP_CipherFinal_ex`);
    /// returns the number of bytes written to `output`.
    private static func run(
        _ direction: Direction, input: UnsafeRawBufferPointer, key: SecureBytes, iv: [UInt8], padding: Padding,
        output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) -> Int {
        guard iv.count == blockSize else { throw .invalidParameters }
        let cipher: OpaquePointer? =
            switch key.count {
            case 16: EVP_aes_128_cbc()
            case 32: EVP_aes_256_cbc()
            default: nil
            }
        guard let cipher else { throw .invalidParameters }
        guard let outputBase = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .library("AES-CBC: missing output buffer")
        }
        // EVP_CIPHER_CTX_free cleanses the expanded key schedule.
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialised = key.withUnsafeBytes { (keyBytes: UnsafeRawBufferPointer) -> Int32 in
            iv.withUnsafeBufferPointer { ivBytes in
                EVP_CipherInit_ex(
                    context, cipher, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    ivBytes.baseAddress,
                    direction.rawValue)
            }
        }
        guard initialised == 1 else { throw .openSSL("EVP_CipherInit_ex") }
        // Set either way, so the PKCS#7 check cannot silently vanish or appear.
        guard EVP_CIPHER_CTX_set_padding(context, padding == .pkcs7 ? 1 : 0) == 1 else {
            throw .openSSL("EVP_CIPHER_CTX_set_padding")
        }
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
        of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        let result = array.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<R, CryptoError> in
            do throws(CryptoError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
