// SPDX-License-Identifier: Apache-2.0
import CSodium

/// The keys an unlock slot's credential yields (docs/design/unlock-slots.md §3), all keyed BLAKE2b
/// (`crypto_generichash`) over a fixed label, so no two slot types ever derive the same key from
/// the same secret.
///
/// Every input and output is a secret and stays in locked memory; the messages hashed are built
/// there too.
public enum SlotKeys {
    /// Bytes of every key made here (BLAKE2b-256).
    public static let keyBytes = 32

    /// The key that wraps a slot's master key: `BLAKE2b-256(key: k, "puff.kek" | type)`, where `k` is
    /// what the credential gave (an Argon2id output, a recovery key, a TPM-sealed key, an
    /// `hmac-secret` output). A legacy slot (header versions 1 and 2) uses its Argon2id output
    /// as is instead.
    public static func kek(from key: SecureBytes, kind: UInt8) -> SecureBytes {
        hash(key: key, Array("puff.kek".utf8) + [kind])
    }

    /// The key a recovery code gives under a slot's salt: `BLAKE2b-256(key: code, "puff.recovery" |
    /// salt)`. The code's 160 random bits need no slow derivation.
    public static func recoveryKey(code: SecureBytes, salt: [UInt8]) -> SecureBytes {
        hash(key: code, Array("puff.recovery".utf8) + salt)
    }

    /// The key of a `fido2+passcode` slot: `BLAKE2b-256(key: hmac-secret output, "puff.fido2+passcode"
    /// | Argon2id(passcode))`, so it needs both the security key and the passcode.
    public static func fido2PasscodeKey(hmacSecret: SecureBytes, passcodeKey: SecureBytes) -> SecureBytes {
        hash(key: hmacSecret, Array("puff.fido2+passcode".utf8), then: passcodeKey)
    }

    /// The 32-byte BLAKE2b MAC of `bytes` under `key` (a header's MAC, keyed with a sub-key of the
    /// master key).
    public static func mac(_ bytes: [UInt8], key: SecureBytes) -> [UInt8] {
        hash(key: key, bytes).unprotectedArray()
    }

    /// Whether `mac` is the MAC of `bytes` under `key`, compared in constant time (`sodium_memcmp`).
    public static func verify(_ mac: [UInt8], of bytes: [UInt8], key: SecureBytes) -> Bool {
        mac.count == keyBytes && hash(key: key, bytes).constantTimeEquals(SecureBytes(unwipedCopyOf: mac))
    }

    /// `BLAKE2b-256(key: key, message | secret)`, the message assembled in locked memory. A key
    /// outside BLAKE2b's 16–64 bytes (never one Puff makes: codes are 20 bytes, the rest 32) is
    /// first hashed down to 32 bytes without a key, so a device answering with an odd length
    /// cannot make this trap.
    private static func hash(key: SecureBytes, _ message: [UInt8], then secret: SecureBytes? = nil) -> SecureBytes {
        _ = Sodium.ready
        guard (Int(crypto_generichash_KEYBYTES_MIN)...Int(crypto_generichash_KEYBYTES_MAX)).contains(key.count) else {
            return hash(key: digest(key, key: nil), message, then: secret)
        }
        let whole = SecureBytes(count: message.count + (secret?.count ?? 0)) { (out: UnsafeMutableRawBufferPointer) in
            message.withUnsafeBytes { out.copyMemory(from: $0) }
            secret?.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[message.count...]).copyMemory(from: $0)
            }
        }
        return digest(whole, key: key)
    }

    /// `crypto_generichash` of `message` into 32 bytes of locked memory, keyed when `key` is given.
    private static func digest(_ message: SecureBytes, key: SecureBytes?) -> SecureBytes {
        SecureBytes(count: keyBytes) { (out: UnsafeMutableRawBufferPointer) in
            message.withUnsafeBytes { input in
                (key ?? .empty).withUnsafeBytes { keyBytes in
                    // Cannot fail for a 32-byte output and a key of 0 or 16–64 bytes.
                    _ = crypto_generichash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count,
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count),
                        keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), keyBytes.count)
                }
            }
        }
    }
}
