// SPDX-License-Identifier: Apache-2.0
import CSodium

/// Argon2id cost parameters, stored with each collection so a vault keeps opening when the
/// defaults change (wraps `crypto_pwhash`'s `opslimit` and `memlimit`).
public struct KDFParameters: Sendable, Equatable {
    /// Passes over memory (`opslimit`).
    public let operations: UInt64
    /// Bytes of memory (`memlimit`).
    public let memoryBytes: Int

    /// libsodium's INTERACTIVE limits (2 passes, 64 MiB): the least Puff accepts, also when it
    /// reads parameters from a header (about 0.1 s on this project's 2-core machine).
    public static let interactive = KDFParameters(
        checkedOperations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
        memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
    /// libsodium's MODERATE limits (3 passes, 256 MiB), the default for a new passcode: an unlock's
    /// key derivation takes 0.3–1 s on this project's 2-core machine (libsodium 1.0.18 measured 734 ms here, landscape.md §5).
    public static let moderate = KDFParameters(
        checkedOperations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
        memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
    /// The most a header may ask for (libsodium's SENSITIVE memory, 1 GiB, and 16 passes), so a
    /// crafted header cannot make an unlock take minutes or exhaust memory.
    static let maximum = (operations: UInt64(16), memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_SENSITIVE))

    /// Parameters read from storage or configuration.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` below ``interactive`` or above the maximum.
    public init(operations: UInt64, memoryBytes: Int) throws(CryptoError) {
        guard operations >= Self.interactive.operations, memoryBytes >= Self.interactive.memoryBytes,
            operations <= Self.maximum.operations, memoryBytes <= Self.maximum.memoryBytes
        else { throw .invalidParameters }
        self.init(checkedOperations: operations, memoryBytes: memoryBytes)
    }

    private init(checkedOperations: UInt64, memoryBytes: Int) {
        operations = checkedOperations
        self.memoryBytes = memoryBytes
    }
}

/// Derives a 32-byte key from a passcode with Argon2id (wraps `crypto_pwhash` with
/// `crypto_pwhash_ALG_ARGON2ID13`).
public enum PasscodeKDF {
    /// Bytes of a salt (`crypto_pwhash_SALTBYTES`).
    public static let saltBytes = Int(crypto_pwhash_SALTBYTES)
    /// Bytes of a derived key.
    public static let keyBytes = 32

    /// A fresh random salt.
    public static func newSalt() -> [UInt8] {
        SecureRandom.bytes(saltBytes)
    }

    /// The key for `passcode` under `salt` and `parameters`, in locked memory.
    ///
    /// Takes as long as the parameters say (hundreds of milliseconds): never call it on an actor
    /// that serves other requests.
    ///
    /// - Throws: ``CryptoError/invalidParameters`` for a salt of the wrong size;
    ///   ``CryptoError/library(_:)`` when libsodium cannot get the memory.
    public static func key(
        for passcode: SecureBytes, salt: [UInt8], parameters: KDFParameters
    ) throws(CryptoError) -> SecureBytes {
        guard salt.count == saltBytes else { throw .invalidParameters }
        _ = Sodium.ready
        return try SecureBytes(count: keyBytes) { (out: UnsafeMutableRawBufferPointer) throws(CryptoError) in
            // An empty passcode has no buffer; libsodium still wants a pointer (read for 0 bytes).
            var none: CChar = 0
            let status = passcode.withUnsafeBytes { secret in
                withUnsafePointer(to: &none) { fallback in
                    salt.withUnsafeBufferPointer { saltBytes in
                        crypto_pwhash(
                            out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(out.count),
                            secret.baseAddress?.assumingMemoryBound(to: CChar.self) ?? fallback, UInt64(secret.count),
                            saltBytes.baseAddress!, parameters.operations, parameters.memoryBytes,
                            crypto_pwhash_ALG_ARGON2ID13)
                    }
                }
            }
            // crypto_pwhash fails only when it cannot allocate its memory.
            guard status == 0 else { throw .library("crypto_pwhash could not get its memory") }
        }
    }
}
