// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One item's access settings as sealed in its item-settings record (kind 4,
/// docs/vault-format.md): whether each read needs a confirmation, and which executables were
/// allowed or denied for good.
public struct ItemSettings: Sendable, Equatable {
    /// One persisted answer for one executable.
    public struct Rule: Sendable, Equatable {
        /// The executable's absolute path, as `/proc/<pid>/exe` named it.
        public var executable: String
        /// The BLAKE2b-256 of the executable's contents when the rule was made with content
        /// hashes on; nil when it holds for any file at that path.
        public var digest: [UInt8]?
        /// Whether the executable may read the item (false: it is refused without a question).
        public var allows: Bool

        /// Creates a rule.
        public init(executable: String, digest: [UInt8]?, allows: Bool) {
            self.executable = executable
            self.digest = digest
            self.allows = allows
        }
    }

    /// The most rules one item keeps; a new executable beyond it is refused with a limit error.
    public static let maxRules = 64
    /// The longest executable path a rule holds (Linux's `PATH_MAX`).
    public static let maxPathBytes = 4096

    /// Whether every read of the secret needs a confirmation.
    public var isProtected: Bool
    /// Persisted answers, oldest first; at most one per executable path.
    public var rules: [Rule]

    /// Settings; the defaults are those of an item that has none.
    public init(isProtected: Bool = false, rules: [Rule] = []) {
        self.isProtected = isProtected
        self.rules = rules
    }

    /// Whether these settings say nothing (an item without a settings record).
    public var isEmpty: Bool { !isProtected && rules.isEmpty }

    /// The record plaintext: `u8 flags (1 protected) | u32 count | count × (string executable |
    /// blob digest (0 or 32 bytes) | u8 verdict (1 allow, 2 deny))`.
    public func plaintext() -> SecureBytes {
        var writer = ByteWriter()
        writer.u8(isProtected ? 1 : 0)
        writer.u32(UInt32(rules.count))
        for rule in rules {
            writer.string(rule.executable)
            writer.blob(rule.digest ?? [])
            writer.u8(rule.allows ? 1 : 2)
        }
        return SecureBytes(unwipedCopyOf: writer.bytes)
    }

    /// Parses an opened item-settings record.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(parsing plaintext: SecureBytes) throws(VaultFormatError) {
        self = try parsing(plaintext.unprotectedArray()) { reader in
            let flags = try reader.u8("settings flags")
            guard flags & ~1 == 0 else { throw ByteReader.Malformed(offset: 0, what: "settings flags") }
            let count = Int(try reader.u32("rule count"))
            guard count <= Self.maxRules else { throw ByteReader.Malformed(offset: 1, what: "rule count") }
            var rules: [Rule] = []
            for _ in 0..<count {
                let executable = try reader.string("executable", max: Self.maxPathBytes)
                let digest = Array(try reader.blob("digest", max: 32))
                guard digest.isEmpty || digest.count == 32 else {
                    throw ByteReader.Malformed(offset: reader.offset, what: "digest")
                }
                let verdict = try reader.u8("verdict")
                guard verdict == 1 || verdict == 2 else {
                    throw ByteReader.Malformed(offset: reader.offset - 1, what: "verdict")
                }
                rules.append(Rule(executable: executable, digest: digest.isEmpty ? nil : digest, allows: verdict == 1))
            }
            try reader.expectEnd("trailing bytes")
            return ItemSettings(isProtected: flags & 1 != 0, rules: rules)
        }
    }
}
