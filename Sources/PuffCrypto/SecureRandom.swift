// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Cryptographically secure random bytes (wraps `randombytes_buf`).
public enum SecureRandom {
    /// Returns `count` bytes from libsodium's CSPRNG (the kernel's `getrandom`).
    ///
    /// - Warning: The array is ordinary memory. Use it for IVs, nonces and salts; for key material
    ///   use ``fill(_:)`` on a ``SecureBytes`` buffer instead.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative random byte count")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Fills `buffer` with CSPRNG bytes in place, so key material never passes through an array.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        _ = Sodium.ready
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // randombytes_buf cannot fail once sodium_init has succeeded; it aborts the process instead.
        randombytes_buf(base, buffer.count)
    }

    /// A number in `0..<upperBound`, every one equally likely: libsodium's `randombytes_uniform`,
    /// which rejects the draws that would favour small numbers (no modulo bias).
    ///
    /// - Precondition: `upperBound` is at least 1.
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0, "an empty range has no uniform draw")
        _ = Sodium.ready
        return randombytes_uniform(upperBound)
    }

    /// Returns `count` CSPRNG bytes in secure memory: keys that must never sit in an ordinary array.
    public static func secureBytes(_ count: Int) -> SecureBytes {
        SecureBytes(count: count) { (buffer: UnsafeMutableRawBufferPointer) -> Void in fill(buffer) }
    }
}
