// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// Reads a ``BackupArchive`` from a regular file's descriptor, entry by entry, checking each
/// entry's checksum as it is read and the whole archive's at the end. Every length is checked
/// against the bytes left in the file and against ``BackupArchive/largestFile`` before anything is
/// read, and ``next(receiving:)`` hands an entry over in pieces, so a forged archive (a sparse
/// file can claim terabytes it does not hold on disk) cannot make the reader take more memory
/// than a piece.
public struct BackupReader {
    /// One file of the archive.
    public struct Entry: Sendable {
        /// Its name in the vault folder (``BackupArchive/isEntryName(_:)``).
        public let name: String
        /// Its bytes.
        public let bytes: [UInt8]
        /// Where its entry starts in the archive.
        public let offset: UInt64
    }

    /// One file of the archive before its bytes: its name, its length and where its entry starts.
    public struct EntryHead: Sendable, Equatable {
        public let name: String
        public let length: UInt64
        public let offset: UInt64
    }

    /// The most bytes ``next(receiving:)`` hands over at once.
    public static let pieceSize = 1 << 20

    private let fd: Int32
    /// The archive's name in messages.
    private let path: String
    private let size: UInt64
    private var offset: UInt64 = 0
    /// How far into the archive it has read.
    public var position: UInt64 { offset }
    private let whole = StreamingDigest()
    private var entries: UInt32 = 0
    private var names: Set<String> = []
    private var ended = false

    /// Opens the archive on `fd` (read from its start with `pread`) and checks its preamble.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming `path` when it is not a
    ///   regular file or not an archive of a version this code reads; ``StoreError/readFailed(_:)``.
    public init(fd: Int32, path: String) throws(StoreError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .readFailed("cannot stat \(path): \(DurableFiles.describe(errno))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw DurableFiles.refused(path, info.st_mode) }
        self.fd = fd
        self.path = path
        size = UInt64(info.st_size)
        let preamble = try read(BackupArchive.preamble.count, at: 0)
        guard preamble.starts(with: BackupArchive.magic) else {
            throw .damaged(file: path, offset: 0, reason: "not a Puff backup")
        }
        let version = BackupArchive.integer(UInt16.self, in: preamble, at: 8)
        guard version == BackupArchive.version, preamble[10...].allSatisfy({ $0 == 0 }) else {
            throw .damaged(
                file: path, offset: 8, reason: "a backup of format version \(version), which this Puff does not read")
        }
        whole.update(preamble)
        offset = UInt64(preamble.count)
    }

    /// The next file, read whole into memory, or nil after the end entry (whose count, length
    /// and checksum are checked). For `puffctl verify --backup` and tests; a restore stages entry
    /// by entry with ``next(receiving:)``.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the archive, the offset of
    ///   the entry and, when it reads, the entry's name.
    public mutating func next() throws(StoreError) -> Entry? {
        var bytes: [UInt8] = []
        guard let head = try next(receiving: { (_, piece) throws(StoreError) in bytes += piece }) else { return nil }
        return Entry(name: head.name, bytes: bytes, offset: head.offset)
    }

    /// The next file's name, length and offset, or nil after the end entry (whose count, length
    /// and checksum are checked). Its bytes go to `receive` as they are read, in pieces of at
    /// most ``pieceSize`` bytes (one empty piece for an empty file), so memory stays bounded
    /// whatever the archive claims. The entry's checksum is checked after its last piece: when
    /// this throws, whatever `receive` kept of the entry is not the archive's and must go.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the archive, the offset of
    ///   the entry and, when it reads, the entry's name; what `receive` throws.
    public mutating func next(
        receiving receive: (_ head: EntryHead, _ piece: [UInt8]) throws(StoreError) -> Void
    ) throws(StoreError) -> EntryHead? {
        guard !ended else { return nil }
        let start = offset
        let kind = try take(1, hashing: nil)[0]
        if kind == BackupArchive.endKind {
            let counts = try take(12, hashing: nil)
            let count = BackupArchive.integer(UInt32.self, in: counts, at: 0)
            let length = BackupArchive.integer(UInt64.self, in: counts, at: 4)
            let expected = whole.finish()
            let checksum = try take(BackupArchive.checksumLength, hashing: nil, hashed: false)
            guard count == entries, length == start, checksum == expected else {
                throw .damaged(
                    file: path, offset: start,
                    reason: "the archive's end does not match what precedes it (checksum, entry count or length)")
            }
            guard offset == size else {
                throw .damaged(file: path, offset: offset, reason: "\(size - offset) bytes follow the archive's end")
            }
            ended = true
            return nil
        }
        guard kind == BackupArchive.fileKind else {
            throw .damaged(file: path, offset: start, reason: "not an entry (kind \(kind))")
        }
        let entry = StreamingDigest()
        entry.update([kind])
        let nameLength = Int(BackupArchive.integer(UInt16.self, in: try take(2, hashing: entry), at: 0))
        guard nameLength <= BackupArchive.longestName else {
            throw .damaged(file: path, offset: start, reason: "an entry name of \(nameLength) bytes")
        }
        let nameBytes = try take(nameLength, hashing: entry)
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard Array(name.utf8) == nameBytes, BackupArchive.isEntryName(name), !names.contains(name) else {
            throw .damaged(
                file: path, offset: start,
                reason: "an entry named \(String(reflecting: name)), which is not a vault file or comes twice")
        }
        let length = BackupArchive.integer(UInt64.self, in: try take(8, hashing: entry), at: 0)
        guard length <= size - offset else {
            throw .damaged(file: path, offset: start, reason: "\(name) claims \(length) bytes; the archive ends before")
        }
        guard length <= BackupArchive.largestFile else {
            throw .damaged(
                file: path, offset: start,
                reason: "\(name) claims \(length) bytes, more than a vault file may hold (\(BackupArchive.largestFile))"
            )
        }
        let head = EntryHead(name: name, length: length, offset: start)
        var left = length
        repeat {
            let piece = try take(Int(min(left, UInt64(Self.pieceSize))), hashing: entry)
            try receive(head, piece)
            left -= UInt64(piece.count)
        } while left > 0
        let checksum = try take(BackupArchive.checksumLength, hashing: nil)
        guard checksum == entry.finish() else {
            throw .damaged(file: path, offset: start, reason: "\(name): its checksum does not match its bytes")
        }
        names.insert(name)
        entries += 1
        return head
    }

    /// The next `count` bytes, added to the whole archive's checksum (unless `hashed` is false)
    /// and to `entry`'s.
    private mutating func take(_ count: Int, hashing entry: StreamingDigest?, hashed: Bool = true)
        throws(StoreError) -> [UInt8]
    {
        guard UInt64(count) <= size - offset else {
            throw .damaged(
                file: path, offset: offset, reason: "the archive ends in the middle of an entry (cut short?)")
        }
        let bytes = try read(count, at: offset)
        offset += UInt64(count)
        if hashed { whole.update(bytes) }
        entry?.update(bytes)
        return bytes
    }

    private func read(_ count: Int, at start: UInt64) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let done: Int
        do throws(Errno) {
            done = try FileDescriptor(rawValue: fd).readFully(fromAbsoluteOffset: Int64(start), into: &bytes)
        } catch {
            throw .readFailed("cannot read \(path): \(DurableFiles.describe(error.rawValue))")
        }
        guard done == count else {
            throw .damaged(
                file: path, offset: start + UInt64(done),
                reason: "the archive ends in the middle of an entry (cut short?)")
        }
        return bytes
    }
}
