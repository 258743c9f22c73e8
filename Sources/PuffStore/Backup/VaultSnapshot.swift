// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The vault's files as they were at one instant between two appends, ready to be written as a
/// ``BackupArchive`` later, while the vault goes on changing.
///
/// Small files replaced or rewritten in place (headers, heads, the catalog) are read whole at that
/// instant. Journals and audit logs are kept open with their length then: they only grow, and a
/// compaction, repair or re-key replaces a file by `rename`, which leaves the open one as it was,
/// so copying the first `length` bytes later gives the instant's bytes.
public final class VaultSnapshot: Sendable {
    /// One file of the snapshot.
    public struct File: Sendable {
        /// Where its bytes are.
        public enum Contents: Sendable {
            /// Read whole.
            case bytes([UInt8])
            /// The first `length` bytes of the open descriptor `fd` (the snapshot owns it).
            case open(fd: Int32, length: UInt64)
        }

        /// Its name in the vault folder (``BackupArchive/isEntryName(_:)``).
        public let name: String
        public let contents: Contents

        public init(name: String, contents: Contents) {
            self.name = name
            self.contents = contents
        }

        /// Its size in bytes.
        public var length: UInt64 {
            switch contents {
            case .bytes(let bytes): UInt64(bytes.count)
            case .open(_, let length): length
            }
        }
    }

    /// The files, sorted by name.
    public let files: [File]
    /// Snapshots this one was made of, kept alive for their descriptors; empty when it owns them.
    private let parts: [VaultSnapshot]

    /// A snapshot of `files`, whose descriptors it now owns.
    public init(files: [File]) {
        self.files = files.sorted { $0.name < $1.name }
        parts = []
    }

    /// The files of `parts` together (the vault store's and the audit store's).
    public init(combining parts: [VaultSnapshot]) {
        files = parts.flatMap(\.files).sorted { $0.name < $1.name }
        self.parts = parts
    }

    deinit {
        guard parts.isEmpty else { return }
        for file in files {
            if case .open(let fd, _) = file.contents { close(fd) }
        }
    }

    /// Collection headers in the snapshot, hidden ones included, deleted ones not.
    public var collections: Int {
        files.count { !$0.name.contains("/") && $0.name.hasSuffix(".header") }
    }

    /// The bytes of its files, what ``write(to:path:counting:)`` counts.
    public var length: UInt64 {
        files.reduce(0) { $0 + $1.length }
    }

    /// Writes the snapshot as an archive on `fd`.
    ///
    /// - Parameters:
    ///   - path: The archive's name in messages.
    ///   - counting: Told the files' bytes as they are copied (``length`` in all).
    /// - Throws: ``StoreError/writeFailed(_:)``, ``StoreError/readFailed(_:)``.
    public func write(to fd: Int32, path: String, counting: ByteCounting? = nil) throws(StoreError) -> BackupSummary {
        var writer = BackupWriter(fd: fd, path: path)
        for file in files {
            switch file.contents {
            case .bytes(let bytes):
                try writer.add(file.name, bytes: bytes)
                counting?(bytes.count)
            case .open(let source, let length):
                try writer.add(file.name, from: source, length: length, counting: counting)
            }
        }
        let bytes = try writer.finish()
        return BackupSummary(files: files.count, collections: collections, bytes: bytes)
    }

    /// Opens `path` for a snapshot under `name`: read whole when `whole`, else kept open with its
    /// length now. Nil when it is gone or is not a regular file (never followed or waited on; the
    /// vault reports it as a problem on its own).
    static func capture(_ path: String, name: String, whole: Bool, upTo end: Int? = nil) throws(StoreError) -> File? {
        do throws(StoreError) {
            if whole {
                guard let bytes = try DurableFiles.readWhole(path) else { return nil }
                return File(name: name, contents: .bytes(bytes))
            }
            guard let fd = try DurableFiles.openRegular(path, O_RDONLY) else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                close(fd)
                throw .readFailed("cannot stat \(path): \(DurableFiles.describe(errno))")
            }
            // A journal's zero tail is not copied: its records end at `end`.
            let length = min(UInt64(info.st_size), end.map { UInt64(max(0, $0)) } ?? UInt64(info.st_size))
            return File(name: name, contents: .open(fd: fd, length: length))
        } catch {
            if case .damaged = error { return nil }
            throw error
        }
    }
}
