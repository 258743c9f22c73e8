// SPDX-License-Identifier: Apache-2.0

/// Puff's backup archive (docs/backup.md): a 16-byte preamble, one entry per vault file, then an
/// end entry. All integers are little-endian.
///
/// * preamble: `PUFFBAK\x01` | u16 version (1) | u16 flags (0) | u32 zero
/// * file entry: u8 kind (1) | u16 name length | name (UTF-8) | u64 length | the file's bytes |
///   32-byte BLAKE2b-256 of everything from the kind byte to the file's last byte
/// * end entry: u8 kind (0) | u32 entry count | u64 the archive's bytes before this entry |
///   32-byte BLAKE2b-256 of every byte before this checksum
///
/// The files are the vault's sealed files as they are on disk; the archive adds their names (random
/// space numbers) and lengths, nothing else, and seals nothing itself.
public enum BackupArchive {
    /// The archive's first 8 bytes.
    public static let magic = Array("PUFFBAK\u{1}".utf8)
    /// The format version this code writes and reads.
    public static let version: UInt16 = 1
    /// Magic, version 1, no flags.
    public static let preamble: [UInt8] = magic + [1, 0, 0, 0, 0, 0, 0, 0]
    /// The kind byte of a file entry.
    static let fileKind: UInt8 = 1
    /// The kind byte of the end entry.
    static let endKind: UInt8 = 0
    /// The longest entry name.
    static let longestName = 255
    /// The largest file an archive may hold (1 GiB): `puffd` reads a vault file whole when it
    /// opens the vault, and a vault of 100,000 items has journals of tens of megabytes, so a
    /// larger entry is a forgery (a sparse archive claiming more than any vault holds).
    public static let largestFile: UInt64 = 1 << 30
    /// Bytes of one entry's checksum.
    public static let checksumLength = 32
    /// What a snapshot file is called: `<time>-<reason>.puffbak`.
    public static let fileExtension = ".puffbak"

    /// The files of the vault folder a backup holds and a restore replaces: the catalog, and per
    /// space its header, journal, head and audit logs. Left out: `lock`, the wrong-passcode
    /// `attempts` (a restore must not reset the delay), journals' cut tails and repaired journals
    /// kept for inspection, temporary files and snapshots.
    public static func isVaultFile(_ name: String) -> Bool {
        if name == "catalog" { return true }
        guard let dot = name.firstIndex(of: "."), SpaceID(hex: String(name[..<dot])) != nil else { return false }
        return [".header", ".journal", ".head", ".audit", ".audit.1"].contains(name[dot...])
    }

    /// Whether `name` may be an entry: a vault file (``isVaultFile(_:)``), or a file of a deleted
    /// collection kept in `deleted/<time>-<space>/`, named after that space. Nothing else is ever
    /// written by a restore: no other folder, no `..`, no link.
    public static func isEntryName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= longestName, !name.utf8.contains(0) else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 1 { return isVaultFile(name) }
        guard parts.count == 3, parts[0] == "deleted", let entry = deletedEntry(String(parts[1])) else { return false }
        let file = String(parts[2])
        return file.hasPrefix(entry.hex + ".") && DurableFiles.isVaultFileName(file) && file != "lock"
    }

    /// The space of a `deleted/` entry folder named `<time>-<space>`, or nil.
    static func deletedEntry(_ name: String) -> SpaceID? {
        let parts = name.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ ("0"..."9").contains($0) }),
            UInt64(parts[0]) != nil
        else { return nil }
        return SpaceID(hex: String(parts[1]))
    }

    /// `value` as `count` little-endian bytes.
    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// The integer in the `T.bitWidth / 8` little-endian bytes of `bytes` at `offset`.
    static func integer<T: FixedWidthInteger>(_: T.Type, in bytes: [UInt8], at offset: Int) -> T {
        var value = T.zero
        for index in (0..<(T.bitWidth / 8)).reversed() { value = value << 8 | T(bytes[offset + index]) }
        return value
    }
}

/// What a backup or snapshot wrote.
public struct BackupSummary: Sendable, Equatable {
    /// Files in the archive.
    public var files: Int
    /// Collection headers among them (hidden ones included, deleted ones not).
    public var collections: Int
    /// The archive's size in bytes.
    public var bytes: UInt64

    public init(files: Int, collections: Int, bytes: UInt64) {
        self.files = files
        self.collections = collections
        self.bytes = bytes
    }
}
