// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// `<space>.index` (``IndexSnapshot``): written whole beside the journal, read like every vault
/// file (no link followed, no FIFO waited on, a regular file only, at most
/// ``IndexSnapshot/maxBytes``). Any trouble reading it is the same as no snapshot.
extension FileRecordStore {
    func indexPath(_ space: SpaceID) -> String { "\(folder)/\(space.hex).index" }

    public func indexSnapshot(of space: SpaceID) -> [UInt8]? {
        guard let fd = try? DurableFiles.openRegular(indexPath(space), O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 0, info.st_size <= IndexSnapshot.maxBytes else { return nil }
        return Self.read(fd, from: 0, count: Int(info.st_size))
    }

    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) throws(StoreError) {
        try checkRunning()
        try DurableFiles.replace(indexPath(space), with: bytes, folder: folder)
    }

    public func removeIndexSnapshot(of space: SpaceID) {
        unlink(indexPath(space))
    }

    /// The journal's records from `offset` (where a frame must start) to its end, and its heads;
    /// nil when the journal is shorter or what follows `offset` is not whole, good frames (a torn
    /// tail is for the full ``replay(_:)``, which cuts and keeps it). A zero-filled end is no
    /// record. Only the preamble and the bytes from `offset` are read: the frames before it are
    /// checked later, off the start's path (``journalFramesAreGood(_:before:)``).
    public func replay(_ space: SpaceID, from offset: UInt64) throws(StoreError) -> JournalReplay? {
        let path = journalPath(space)
        guard let fd = try DurableFiles.openRegular(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, let start = Self.read(fd, from: 0, count: 16),
            let version = JournalFraming.version(of: start)
        else { return nil }
        let preamble = JournalFraming.preamble(version: version)
        let size = UInt64(max(0, info.st_size))
        guard offset >= UInt64(preamble.count), offset < size, size - offset <= UInt64(Int.max),
            let rest = Self.read(fd, from: offset, count: Int(size - offset)),
            let parsed = try? JournalFraming.parse(preamble + rest, file: path, preamble: preamble)
        else { return nil }
        let end = parsed.goodEnd - preamble.count
        guard rest[end...].allSatisfy({ $0 == 0 }) else { return nil }
        let shift = offset - UInt64(preamble.count)
        committer.noteEnd(Int(offset) + end, of: space)
        return JournalReplay(
            records: parsed.records.map { JournalReplay.Record(offset: $0.offset + shift, bytes: $0.bytes) },
            cut: nil, size: offset + UInt64(end), version: version, heads: try headSlots(space))
    }

    /// Whether the journal's bytes from its preamble to `offset` are whole frames whose checksums
    /// match: what a start from an index snapshot checks after the bus names (design
    /// core-reshaped §4.3). Read in 1 MiB pieces on a Dispatch thread, outside the actor and
    /// Swift's cooperative pool; false when the journal is shorter or cannot be read.
    public nonisolated func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool {
        let path = "\(folder)/\(space.hex).journal"
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Self.framesAreGood(path, before: offset))
            }
        }
    }

    static func framesAreGood(_ path: String, before end: UInt64) -> Bool {
        guard let fd = try? DurableFiles.openRegular(path, O_RDONLY) else { return false }
        defer { close(fd) }
        guard let start = read(fd, from: 0, count: 16), let version = JournalFraming.version(of: start) else {
            return false
        }
        var reader = FrameWalk(fd: fd, at: UInt64(JournalFraming.preamble(version: version).count), end: end)
        return reader.walk()
    }

    /// Whether `bytes[start..<end]` is whole frames whose checksums match.
    static func framesAreGood(_ bytes: [UInt8], from start: Int, to end: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = start
            while offset < end {
                guard end - offset >= JournalFraming.frameOverhead else { return false }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let payload = offset + JournalFraming.frameOverhead
                guard length > 0, length <= JournalFraming.maxPayload, end - payload >= length else { return false }
                let sum = Checksum.digest(of: [
                    UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 4]),
                    UnsafeRawBufferPointer(rebasing: raw[payload..<payload + length]),
                ])
                guard sum.elementsEqual(raw[offset + 4..<payload]) else { return false }
                offset = payload + length
            }
            return true
        }
    }

    /// `count` bytes of `fd` from `offset`, or nil when fewer are there.
    private static func read(_ fd: Int32, from offset: UInt64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBytes {
            try? FileDescriptor(rawValue: fd).readFully(fromAbsoluteOffset: Int64(offset), into: $0)
        }
        return done == count ? bytes : nil
    }
}
