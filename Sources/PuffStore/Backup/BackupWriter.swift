// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// Writes a ``BackupArchive`` to a descriptor from its start, one entry after another, hashing as
/// it goes: the archive is never held in memory whole.
public struct BackupWriter {
    private let fd: Int32
    /// The archive's name in messages.
    private let path: String
    private let whole = StreamingDigest()
    private var buffer: [UInt8] = []
    /// Bytes written (or buffered) so far.
    public private(set) var written: UInt64 = 0
    /// File entries so far.
    public private(set) var entries: UInt32 = 0
    private static let bufferSize = 1 << 20

    /// Starts an archive on `fd` (its current offset) with the preamble.
    public init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
        put(BackupArchive.preamble)
    }

    /// Adds one file whose bytes are in memory.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``.
    public mutating func add(_ name: String, bytes: [UInt8]) throws(StoreError) {
        let entry = StreamingDigest()
        try begin(name, length: UInt64(bytes.count), entry: entry)
        entry.update(bytes)
        try putFlushing(bytes)
        try end(entry)
    }

    /// Adds one file: the first `length` bytes of `source` (read with `pread`, so another reader
    /// of the descriptor is not disturbed). `counting` is told each chunk's bytes once copied.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; ``StoreError/readFailed(_:)`` when the file is
    ///   shorter than `length` now (it was cut while it was copied).
    public mutating func add(
        _ name: String, from source: Int32, length: UInt64, counting: ByteCounting? = nil
    ) throws(StoreError) {
        let entry = StreamingDigest()
        try begin(name, length: length, entry: entry)
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        var offset: UInt64 = 0
        while offset < length {
            let want = Int(min(UInt64(chunk.count), length - offset))
            let got = chunk.withUnsafeMutableBytes {
                (try? FileDescriptor(rawValue: source).readSome(
                    fromAbsoluteOffset: Int64(offset), into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))) ?? 0
            }
            guard got > 0 else {
                throw .readFailed("\(name) became shorter while it was copied into \(path)")
            }
            chunk.withUnsafeBytes { entry.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            try putFlushing(Array(chunk[..<got]))
            offset += UInt64(got)
            counting?(got)
        }
        try end(entry)
    }

    /// Writes the end entry and everything buffered.
    ///
    /// - Returns: The archive's size in bytes.
    /// - Throws: ``StoreError/writeFailed(_:)``.
    public mutating func finish() throws(StoreError) -> UInt64 {
        let before = written
        put([BackupArchive.endKind] + BackupArchive.littleEndian(entries) + BackupArchive.littleEndian(before))
        try flush()
        let checksum = whole.finish()
        try DurableFiles.writeAll(fd, checksum, path: path)
        written += UInt64(checksum.count)
        return written
    }

    private mutating func begin(_ name: String, length: UInt64, entry: StreamingDigest) throws(StoreError) {
        guard BackupArchive.isEntryName(name) else { throw .writeFailed("\(name) cannot go into a backup") }
        let head =
            [BackupArchive.fileKind] + BackupArchive.littleEndian(UInt16(name.utf8.count)) + Array(name.utf8)
            + BackupArchive.littleEndian(length)
        entry.update(head)
        try putFlushing(head)
    }

    private mutating func end(_ entry: StreamingDigest) throws(StoreError) {
        try putFlushing(entry.finish())
        entries += 1
    }

    private mutating func put(_ bytes: [UInt8]) {
        buffer += bytes
        written += UInt64(bytes.count)
    }

    private mutating func putFlushing(_ bytes: [UInt8]) throws(StoreError) {
        put(bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Hashes and writes what is buffered.
    private mutating func flush() throws(StoreError) {
        whole.update(buffer)
        try DurableFiles.writeAll(fd, buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
    }
}
