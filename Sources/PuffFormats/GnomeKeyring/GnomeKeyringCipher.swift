// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The encryption of a binary keyring's secret part (gkm-secret-binary.c, egg-symkey.c):
/// SHA-256 over password and 8-byte salt, the digest hashed again `iterations - 1` times; the
/// first 16 bytes are the AES-128 key, the last 16 the CBC IV; whole blocks, no padding mode
/// (the writer pads with zeros); an MD5 of everything after the first block's 16 bytes stored in
/// them as the password check.
enum GnomeKeyringCipher {
    static let saltLength = 8

    /// The key and IV for `passcode` (empty when nil, as gnome-keyring tries a NULL password).
    static func keyAndIV(
        passcode: SecureBytes?, salt: [UInt8], iterations: UInt32
    ) throws(ForeignFormatError) -> (key: SecureBytes, iv: [UInt8]) {
        guard iterations >= 1 else { throw .damaged("the header's hash iteration count is zero") }
        do {
            var digest = try ForeignDigest.hash(
                .sha256, secret: [passcode ?? .empty, SecureBytes(unwipedCopyOf: salt)])
            for _ in 1..<iterations {
                digest = try ForeignDigest.hash(.sha256, secret: [digest])
            }
            return digest.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                (
                    SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<16])),
                    Array(bytes[16..<32])
                )
            }
        } catch {
            throw .unsupported("SHA-256 is not available: \(error)")
        }
    }

    /// Decrypts `ciphertext` and checks the MD5 password check.
    ///
    /// - Throws: ``ForeignFormatError/wrongPasscode`` when the check fails (a damaged encrypted
    ///   part looks the same, as it does to gnome-keyring).
    static func open(
        _ ciphertext: [UInt8], passcode: SecureBytes?, salt: [UInt8], iterations: UInt32
    ) throws(ForeignFormatError) -> SecureBytes {
        guard ciphertext.count >= 16, ciphertext.count % AESCBC.blockSize == 0 else {
            throw .damaged("the encrypted part's size \(ciphertext.count) is not whole 16-byte blocks")
        }
        let (key, iv) = try keyAndIV(passcode: passcode, salt: salt, iterations: iterations)
        let plaintext: SecureBytes
        let expected: SecureBytes
        do {
            plaintext = try AESCBC.decrypt(ciphertext, key: key, iv: iv, padding: .none)
            let body = plaintext.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[16...])) }
            expected = try ForeignDigest.hash(.md5, secret: [body])
        } catch {
            throw .unsupported("AES-128-CBC or MD5 is not available: \(error)")
        }
        let check = plaintext.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<16])) }
        guard check.constantTimeEquals(expected) else { throw .wrongPasscode }
        return plaintext
    }

    /// Encrypts `body` (the items) behind its MD5 check, zero-padded to whole blocks.
    static func seal(
        _ body: SecureBytes, passcode: SecureBytes, salt: [UInt8], iterations: UInt32
    ) throws(ForeignFormatError) -> [UInt8] {
        let padded = (16 + body.count + 15) / 16 * 16
        do {
            let checksum = try ForeignDigest.hash(
                .md5,
                secret: [body, SecureBytes(unwipedCopyOf: [UInt8](repeating: 0, count: padded - 16 - body.count))])
            let plaintext = SecureBytes(count: padded) { (output: UnsafeMutableRawBufferPointer) in
                output.initializeMemory(as: UInt8.self, repeating: 0)
                checksum.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: output[0..<16]).copyMemory(from: $0)
                }
                body.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: output[16..<16 + body.count]).copyMemory(from: $0)
                }
            }
            let (key, iv) = try keyAndIV(passcode: passcode, salt: salt, iterations: iterations)
            return try AESCBC.encrypt(plaintext, key: key, iv: iv, padding: .none)
        } catch let error as ForeignFormatError {
            throw error
        } catch {
            throw .unsupported("AES-128-CBC or MD5 is not available: \(error)")
        }
    }
}
