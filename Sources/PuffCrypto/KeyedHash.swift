// SPDX-License-Identifier: Apache-2.0
import CSodium

/// A 128-bit keyed BLAKE2b digest (wraps `crypto_generichash` with a key), used as the key of an
/// attribute index: with a secret key the index tells whoever holds it only whether a guessed value
/// is present, never the value (architecture.md Part A item 3, the blind index).
public struct Digest128: Hashable, Sendable {
    /// The first and last eight bytes of the digest.
    public let high: UInt64
    public let low: UInt64

    /// The 16 digest bytes as BLAKE2b produced them.
    public var bytes: [UInt8] {
        withUnsafeBytes(of: (high, low)) { Array($0) }
    }

    /// The digest whose 16 bytes are `bytes` (as ``bytes`` gives them).
    public init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 16, "a Digest128 has 16 bytes")
        var value = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
        (high, low) = value
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }
}

/// Computes ``Digest128`` values under one secret key.
public struct KeyedHash: Sendable {
    static let keyBytes = Int(crypto_generichash_KEYBYTES)
    private let key: SecureBytes

    /// A hasher with a fresh random key.
    public init() {
        key = SecureRandom.secureBytes(Self.keyBytes)
    }

    /// A hasher over an existing key of `crypto_generichash_KEYBYTES` (32) bytes.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` when the key has another size.
    public init(key: SecureBytes) throws(CryptoError) {
        guard key.count == Self.keyBytes else { throw .invalidParameters }
        self.key = key
    }

    /// The digest of `bytes`.
    public func digest(_ bytes: UnsafeRawBufferPointer) -> Digest128 {
        CryptoCounts.noteDigest()
        var out = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &out) { digest in
            key.withUnsafeBytes { keyBytes in
                // crypto_generichash cannot fail for a 16-byte output and a 32-byte key.
                _ = crypto_generichash(
                    digest.baseAddress!.assumingMemoryBound(to: UInt8.self), 16,
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
            }
        }
        return Digest128(high: out.0, low: out.1)
    }

    /// The digest of `bytes`.
    public func digest(_ bytes: [UInt8]) -> Digest128 {
        bytes.withUnsafeBytes { digest($0) }
    }
}

/// An unkeyed 128-bit BLAKE2b checksum (wraps `crypto_generichash` without a key): detects torn
/// and corrupted bytes in vault files before any key is at hand. Not an authenticator; records
/// are authenticated by their AEAD.
public enum Checksum {
    /// The checksum of `bytes`, 16 bytes.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        digest(of: [bytes])
    }

    /// The checksum of `parts` read one after another, 16 bytes, without joining them first.
    public static func digest(of parts: [UnsafeRawBufferPointer]) -> [UInt8] {
        _ = Sodium.ready
        // The state is an aligned struct Swift imports as opaque: give it raw, aligned memory.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        defer { memory.deallocate() }
        let state = OpaquePointer(memory)
        var out = [UInt8](repeating: 0, count: 16)
        // None of these can fail for a 16-byte output and no key.
        _ = crypto_generichash_init(state, nil, 0, 16)
        for part in parts {
            _ = crypto_generichash_update(
                state, part.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        _ = crypto_generichash_final(state, &out, 16)
        return out
    }

    /// The checksum of `bytes`, 16 bytes.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }
}
