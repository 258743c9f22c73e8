// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// What the clipboard clearer remembers of a copied secret: its length and a keyed BLAKE2b digest
/// (`crypto_generichash`) under a fresh random key, never the secret itself.
///
/// The key sits in secure memory next to the digest, so the digest alone, were it to leak, gives
/// no way to test guesses of a short passcode against it.
struct ClipboardMark {
    /// Bytes of ``encoded``: the length (8, little-endian), the key (32) and the digest (16).
    static let encodedCount = 8 + keyCount + 16
    private static let keyCount = 32

    /// The secret's length in bytes.
    let length: Int
    private let key: SecureBytes
    private let digest: SecureBytes

    /// Marks `secret` under a fresh key.
    init(of secret: SecureBytes) {
        length = secret.count
        key = SecureRandom.secureBytes(Self.keyCount)
        digest = Self.digest(of: secret, key: key)
    }

    /// Reads a mark back from ``encoded``, as the clearer receives it on its standard input.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when `bytes` has another size.
    init(encoded bytes: SecureBytes) throws(ClientError) {
        guard bytes.count == Self.encodedCount else { throw .usage("the clipboard mark has the wrong size") }
        let (length, key, digest) = bytes.withUnsafeBytes { raw in
            (
                Int(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))),
                SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[8..<(8 + Self.keyCount)])),
                SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[(8 + Self.keyCount)...]))
            )
        }
        self.length = length
        self.key = key
        self.digest = digest
    }

    /// The mark as bytes, for the clearer's standard input (never its arguments).
    var encoded: SecureBytes {
        SecureBytes(count: Self.encodedCount) { (out: UnsafeMutableRawBufferPointer) -> Void in
            out.storeBytes(of: UInt64(length).littleEndian, as: UInt64.self)
            key.withUnsafeBytes {
                out.baseAddress!.advanced(by: 8).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            digest.withUnsafeBytes {
                out.baseAddress!.advanced(by: 8 + Self.keyCount).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
        }
    }

    /// Whether `content` is the marked secret: same length and, compared in constant time
    /// (`sodium_memcmp`), the same digest.
    func matches(_ content: SecureBytes) -> Bool {
        content.count == length && Self.digest(of: content, key: key).constantTimeEquals(digest)
    }

    private static func digest(of bytes: SecureBytes, key: SecureBytes) -> SecureBytes {
        // The key is always keyCount bytes, which is what KeyedHash asks for.
        guard let hash = try? KeyedHash(key: key) else { return .empty }
        let digest = bytes.withUnsafeBytes { hash.digest($0) }
        return SecureBytes(unwipedCopyOf: digest.bytes)
    }
}
