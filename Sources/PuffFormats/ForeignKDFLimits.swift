// SPDX-License-Identifier: Apache-2.0

/// The most key-derivation work a foreign file may ask for (docs/migration.md): the header of a
/// file a person imports is the file's author's choice, so a cost no tool offers is refused as
/// unsupported before it runs, never tried. Each bound holds what the real tools write with room
/// to spare and keeps the worst case to about a minute and at most 4 GiB on this kind of machine.
/// A fuzzing build (`-DPUFF_FUZZ`, docs/fuzzing.md) lowers every bound so each input runs fast.
enum ForeignKDFLimits {
    #if PUFF_FUZZ
        static let gnomeKeyringIterations: UInt32 = 64
        static let libsecretIterations = 64
        static let aesKDFRounds: UInt64 = 64
        static let argon2MemoryBytes: UInt64 = 64 << 10
        static let argon2WorkKiB: UInt64 = 256
    #else
        /// gnome-keyring writes 1000-4095 SHA-256 rounds and Puff's export 100,000; each round costs
        /// a secure allocation, about 10 µs.
        static let gnomeKeyringIterations: UInt32 = 1_000_000
        /// libsecret and oo7 write 100,000 PBKDF2-SHA256 rounds.
        static let libsecretIterations = 10_000_000
        /// KeePass's AES-KDF: rounds as a 64-bit count; KeePassXC's one-second benchmark gives
        /// tens of millions.
        static let aesKDFRounds = UInt64(UInt32.max)
        /// Argon2's memory, in bytes (KeePassXC's largest setting).
        static let argon2MemoryBytes: UInt64 = 4 << 30
        /// Argon2's passes times its memory in KiB: 64 GiB passed over (64 MiB × 1024 passes, or
        /// 4 GiB × 16); KeePassXC's default is 64 MiB × about 10-40.
        static let argon2WorkKiB: UInt64 = 64 << 20
    #endif
}
