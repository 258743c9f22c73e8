// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What the files of a vault folder show without a key and without changing anything: each
/// vault file's framing and checksums, files that are not regular files, and journals cut
/// before. `puffctl doctor` reports it; nothing here writes, follows a link or waits on a FIFO.
public enum VaultFileCheck {
    /// One thing found wrong with one file.
    public struct Finding: Sendable, Equatable {
        /// What kind of problem it is.
        public enum Kind: Sendable, Equatable {
            /// Bytes before the end fail their checksum or make no sense: the collection (or the
            /// catalog, or the audit log) does not open as it is.
            case damaged
            /// Not a regular file: puffd refuses it.
            case refused
            /// A journal was cut before: the bytes cut off are kept in this file.
            case cut
            /// A journal ends in a torn append, which puffd cuts off (and keeps) when it next reads it.
            case torn
        }

        public var kind: Kind
        /// The file's path.
        public var file: String
        /// Where in the file (for ``Kind/cut``, where the journal was cut).
        public var offset: UInt64
        /// What is wrong, for people.
        public var what: String

        /// Creates a finding.
        public init(kind: Kind, file: String, offset: UInt64, what: String) {
            self.kind = kind
            self.file = file
            self.offset = offset
            self.what = what
        }
    }

    /// The findings for the vault in `folder`, sorted by file; empty when all is well.
    /// `counting` is told each file's bytes once it is checked.
    public static func findings(folder: String, counting: ByteCounting? = nil) -> [Finding] {
        names(in: folder).compactMap { check("\(folder)/\($0)", name: $0, counting: counting) }
    }

    /// The bytes of the vault files in `folder` now, what ``findings(folder:counting:)`` counts
    /// (links and other files that are not regular count nothing).
    public static func bytes(folder: String) -> UInt64 {
        names(in: folder).reduce(0) { total, name in
            var info = stat()
            guard lstat("\(folder)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return total }
            return total + UInt64(info.st_size)
        }
    }

    /// The vault files' names in `folder`, sorted.
    private static func names(in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if DurableFiles.isVaultFileName(name) { names.append(name) }
        }
        closedir(dir)
        return names.sorted()
    }

    /// The finding for one vault file, or nil when it is fine (or gone).
    static func check(_ path: String, name: String, counting: ByteCounting? = nil) -> Finding? {
        let bytes: [UInt8]
        do throws(StoreError) {
            guard let read = try DurableFiles.readWhole(path) else { return nil }
            bytes = read
        } catch {
            return finding(error, path: path, kind: .refused)
        }
        defer { counting?(bytes.count) }
        return finding(for: bytes, name: name, path: path)
    }

    /// The finding for the bytes of one vault file called `name`, named `path` in messages (a
    /// backup's entry, for `puffctl verify --backup`), or nil when they are fine.
    public static func finding(for bytes: [UInt8], name: String, path: String) -> Finding? {
        if let range = name.firstRange(of: ".journal.cut-") {
            let journal = String(path.dropLast(name.count)) + name[..<range.lowerBound] + ".journal"
            let offset = UInt64(name[range.upperBound...]) ?? 0
            return Finding(
                kind: .cut, file: path, offset: offset,
                what: "\(journal) was cut at offset \(offset); the \(bytes.count) bytes cut off are kept here")
        }
        do throws(StoreError) {
            if name == "catalog" {
                _ = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.catalogMagic, name: path)
            } else if name == "attempts" {
                _ = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.attemptsMagic, name: path)
            } else if name == "fleet" {
                _ = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.fleetMagic, name: path)
            } else if name.hasSuffix(".header") {
                _ = try ChecksummedFile.decode(bytes, magic: ChecksummedFile.headerMagic, name: path)
            } else if name != "lock", !name.hasSuffix(".head") {
                // A head's two slots are checked when its collection opens: one bad slot is a torn write.
                let isJournal = name.hasSuffix(".journal")
                let preamble =
                    isJournal
                    ? JournalFraming.preamble(version: JournalFraming.version(of: bytes) ?? VaultRecord.currentFormat)
                    : AuditFraming.preamble
                let goodEnd = try JournalFraming.goodEnd(of: bytes, file: path, preamble: preamble)
                // A zero-filled tail is written ahead of appends: not a torn one.
                if isJournal, let last = bytes[goodEnd...].lastIndex(where: { $0 != 0 }) {
                    return Finding(
                        kind: .torn, file: path, offset: UInt64(goodEnd),
                        what: "ends in a torn append of \(last + 1 - goodEnd) bytes")
                }
            }
        } catch {
            return finding(error, path: path, kind: .damaged)
        }
        return nil
    }

    private static func finding(_ error: StoreError, path: String, kind: Finding.Kind) -> Finding {
        switch error {
        case .damaged(let file, let offset, let reason):
            let refused = reason.hasSuffix("not a regular file: refused")
            return Finding(kind: refused ? .refused : kind, file: file, offset: offset, what: reason)
        default:
            return Finding(kind: .damaged, file: path, offset: 0, what: "\(error)")
        }
    }
}
