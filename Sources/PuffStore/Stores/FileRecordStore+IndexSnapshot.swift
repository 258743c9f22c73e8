// SPDX-License-Identifier: Apache-2.0
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
    /// nil when the journal is shorter, a frame before `offset` fails its checksum (a flipped
    /// byte: the full ``replay(_:)`` reports where), or what follows `offset` is not whole, good
    /// frames (a torn tail is for the full replay, which cuts and keeps it). A zero-filled end is
    /// no record. The frames before `offset` are checked in place, none copied.
    public func replay(_ space: SpaceID, from offset: UInt64) throws(StoreError) -> JournalReplay? {
        let path = journalPath(space)
        guard let bytes = try DurableFiles.readWhole(path), let version = JournalFraming.version(of: bytes) else {
            return nil
        }
        let preamble = JournalFraming.preamble(version: version)
        guard offset >= UInt64(preamble.count), offset < UInt64(bytes.count),
            Self.framesAreGood(bytes, from: preamble.count, to: Int(offset))
        else { return nil }
        guard let parsed = try? JournalFraming.parse(preamble + bytes[Int(offset)...], file: path, preamble: preamble)
        else { return nil }
        let end = Int(offset) + parsed.goodEnd - preamble.count
        guard bytes[end...].allSatisfy({ $0 == 0 }) else { return nil }
        let shift = offset - UInt64(preamble.count)
        committer.noteEnd(end, of: space)
        return JournalReplay(
            records: parsed.records.map { JournalReplay.Record(offset: $0.offset + shift, bytes: $0.bytes) },
            cut: nil, size: UInt64(end), version: version, heads: try headSlots(space))
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
