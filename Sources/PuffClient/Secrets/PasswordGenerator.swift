// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Passwords from libsodium's CSPRNG, every character drawn uniformly from a ``PasswordCharset``
/// (`randombytes_uniform`, which has no modulo bias), written straight into secure memory.
public enum PasswordGenerator {
    /// The length `generate` and `add --generate` use when none is given.
    public static let standardLength = 24
    /// The longest password generated, in characters.
    public static let maximumLength = 4096

    /// A password of `length` characters of `charset`, UTF-8 encoded.
    ///
    /// - Precondition: `length` is in `1...maximumLength`.
    public static func generate(length: Int, charset: PasswordCharset) -> SecureBytes {
        precondition((1...maximumLength).contains(length), "password length out of range")
        let characters = charset.characters
        let count = UInt32(characters.count)
        var used = 0
        // A character is at most 4 bytes of UTF-8; the scratch is cut to size below.
        let scratch = SecureBytes(count: length * 4) { (buffer: UnsafeMutableRawBufferPointer) -> Void in
            for _ in 0..<length {
                for byte in UTF8.encode(characters[Int(SecureRandom.uniform(count))])! {
                    buffer[used] = byte
                    used += 1
                }
            }
        }
        return scratch.withUnsafeBytes { bytes in SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<used]))
        }
    }
}
