// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// Walks a journal's frames from a descriptor, a piece at a time, checking each one's length and
/// checksum: what a start from an index snapshot checks of the part the snapshot covers, after the
/// bus names (design core-reshaped §4.3). Memory stays at one piece (4 MiB, room for the largest
/// frame) whatever the journal's size.
struct FrameWalk {
    let fd: Int32
    /// Where the next frame starts, in the file.
    var at: UInt64
    /// Where the frames must end, exactly.
    let end: UInt64

    /// Whether whole frames with matching checksums run from `at` to `end` exactly.
    mutating func walk() -> Bool {
        let capacity = 2 * JournalFraming.maxPayload
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { piece.deallocate() }
        let verifier = Checksum.Verifier()
        // The piece holds the file's bytes [pieceStart, pieceStart + filled).
        var pieceStart = at
        var filled = 0
        while at < end {
            let overhead = UInt64(JournalFraming.frameOverhead)
            guard end - at >= overhead else { return false }
            guard ensure(Int(overhead), in: piece, start: &pieceStart, filled: &filled) else { return false }
            let offset = Int(at - pieceStart)
            let length = Int(UInt32(littleEndian: piece.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            guard length > 0, length <= JournalFraming.maxPayload, end - at - overhead >= UInt64(length),
                ensure(Int(overhead) + length, in: piece, start: &pieceStart, filled: &filled)
            else { return false }
            let frame = Int(at - pieceStart)
            let raw = UnsafeRawBufferPointer(piece)
            guard
                verifier.matches(
                    UnsafeRawBufferPointer(rebasing: raw[frame + 4..<frame + 20]),
                    UnsafeRawBufferPointer(rebasing: raw[frame..<frame + 4]),
                    UnsafeRawBufferPointer(rebasing: raw[frame + 20..<frame + 20 + length]))
            else { return false }
            at += overhead + UInt64(length)
        }
        return at == end
    }

    /// Makes the piece hold `count` bytes from `at`: what is left of it moves to its start and the
    /// rest is read, up to the piece's size or `end`. False when the file ends first.
    private func ensure(
        _ count: Int, in piece: UnsafeMutableRawBufferPointer, start: inout UInt64, filled: inout Int
    ) -> Bool {
        if at + UInt64(count) <= start + UInt64(filled) { return true }
        let kept = Int(start + UInt64(filled) - at)
        if kept > 0 { piece.baseAddress!.copyMemory(from: piece.baseAddress! + Int(at - start), byteCount: kept) }
        start = at
        filled = kept
        let wanted = Int(min(UInt64(piece.count - filled), end - (start + UInt64(filled))))
        // A read error ends the walk here, as the file's end would: the frame is then incomplete.
        let target = UnsafeMutableRawBufferPointer(rebasing: piece[filled..<filled + wanted])
        let done =
            (try? FileDescriptor(rawValue: fd).readFully(fromAbsoluteOffset: Int64(start) + Int64(filled), into: target))
            ?? 0
        filled += done
        return filled >= count
    }
}
