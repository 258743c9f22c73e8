// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What a restore checks of each staged file before it replaces anything (docs/backup.md,
/// Restore): an archive's checksums are unkeyed, so anyone can write one whose files are garbage
/// with every checksum right. Without a key, each file is read as `puffd` would read it at start:
/// the catalog and headers parsed whole (a header of a format version this Puff does not read is
/// refused, as is one whose space is not the one its name says), journals and audit logs framed
/// and checksummed (a torn last append passes: `puffd` cuts it off and keeps it, as in the vault).
/// A head is checked when its collection opens, as in the vault.
enum RestoreCheck {
    /// The problem with the staged file at `path`, the archive entry `entry`, or nil when it reads.
    static func problem(staged path: String, entry: BackupReader.EntryHead) -> String? {
        let name = String(entry.name.split(separator: "/").last ?? "")
        if let finding = VaultFileCheck.check(path, name: name), finding.kind != .torn {
            return "\(entry.name) at offset \(finding.offset): \(finding.what)"
        }
        guard name == "catalog" || name.hasSuffix(".header") else { return nil }
        do throws(StoreError) {
            guard let bytes = try DurableFiles.readWhole(path) else { return "\(entry.name) is gone" }
            if name == "catalog" {
                let body = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.catalogMagic, name: entry.name)
                do { _ = try Catalog(decoding: body) } catch { return "\(entry.name): \(error)" }
            } else {
                let body = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.headerMagic, name: entry.name)
                let header: VaultHeader
                do { header = try VaultHeader(decoding: body) } catch { return "\(entry.name): \(error)" }
                guard name == "\(header.space.hex).header" else {
                    return "\(entry.name) is the header of another space (\(header.space.hex))"
                }
            }
        } catch {
            return "\(entry.name): \(error)"
        }
        return nil
    }

    /// Bytes free to an unprivileged writer in the file system of `folder`, or nil when unknown.
    static func freeBytes(in folder: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
