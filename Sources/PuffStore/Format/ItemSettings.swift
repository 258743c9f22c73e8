// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffSystem

/// One item's access settings as sealed in its item-settings record (kind 4,
/// docs/vault-format.md): whether each read needs a confirmation, and which executables were
/// allowed or denied for good; and its app rules (kind 5): which Flatpak apps were.
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

    /// One persisted answer for one Flatpak app (record kind 5).
    public struct AppRule: Sendable, Equatable {
        /// The app, as its sandbox's `.flatpak-info` names it.
        public var app: AppID
        /// Whether the app may read the item (false: it is refused without a question).
        public var allows: Bool

        /// Creates a rule.
        public init(app: AppID, allows: Bool) {
            self.app = app
            self.allows = allows
        }
    }

    /// The most rules one item keeps, executables' and apps' together; a new one beyond it is
    /// refused with a limit error.
    public static let maxRules = 64
    /// The longest executable path a rule holds (Linux's `PATH_MAX`).
    public static let maxPathBytes = 4096

    /// Whether every read of the secret needs a confirmation.
    public var isProtected: Bool
    /// Persisted answers, oldest first; at most one per executable path.
    public var rules: [Rule]
    /// Persisted answers for apps, oldest first; at most one per app (record kind 5).
    public var appRules: [AppRule]

    /// Settings; the defaults are those of an item that has none.
    public init(isProtected: Bool = false, rules: [Rule] = [], appRules: [AppRule] = []) {
        self.isProtected = isProtected
        self.rules = rules
        self.appRules = appRules
    }

    /// Whether these settings say nothing (an item without a settings record).
    public var isEmpty: Bool { !isProtected && rules.isEmpty && appRules.isEmpty }

    /// How many rules the item keeps, executables' and apps' together (at most ``maxRules``).
    public var ruleCount: Int { rules.count + appRules.count }

    /// Whether the part kind 4 records (protection, executables' rules) differs from `other`'s.
    public func accessDiffers(from other: ItemSettings) -> Bool {
        isProtected != other.isProtected || rules != other.rules
    }

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

    /// The app-rules record plaintext (kind 5): `u32 count | count × (string app id (at most 255
    /// bytes) | u8 verdict (1 allow, 2 deny))`.
    public func appRulesPlaintext() -> SecureBytes {
        var writer = ByteWriter()
        writer.u32(UInt32(appRules.count))
        for rule in appRules {
            writer.string(rule.app.rawValue)
            writer.u8(rule.allows ? 1 : 2)
        }
        return SecureBytes(unwipedCopyOf: writer.bytes)
    }

    /// Parses an opened app-rules record (kind 5). An id flatpak would refuse is malformed.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public static func appRules(parsing plaintext: SecureBytes) throws(VaultFormatError) -> [AppRule] {
        try parsing(plaintext.unprotectedArray()) { reader in
            let count = Int(try reader.u32("app rule count"))
            guard count <= Self.maxRules else { throw ByteReader.Malformed(offset: 0, what: "app rule count") }
            var rules: [AppRule] = []
            for _ in 0..<count {
                let start = reader.offset
                let name = try reader.string("app id", max: AppID.maximumLength)
                guard let app = AppID(rawValue: name), !rules.contains(where: { $0.app == app }) else {
                    throw ByteReader.Malformed(offset: start, what: "app id")
                }
                let verdict = try reader.u8("verdict")
                guard verdict == 1 || verdict == 2 else {
                    throw ByteReader.Malformed(offset: reader.offset - 1, what: "verdict")
                }
                rules.append(AppRule(app: app, allows: verdict == 1))
            }
            try reader.expectEnd("trailing bytes")
            return rules
        }
    }

    /// Parses an opened item-settings record (kind 4); ``appRules`` stay empty.
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
