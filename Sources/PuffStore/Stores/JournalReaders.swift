// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffSystem
import Synchronization
import SystemPackage

/// A ``FileRecordStore``'s read descriptors, one per journal read since it was last replaced:
/// ``RecordStore/read(_:in:)`` reads a record with one `pread` from any thread (design
/// core-reshaped §5). A journal that is replaced, moved or removed is forgotten, so the next read
/// opens the file now at that path.
final class JournalReaders: Sendable {
    private let descriptors = Mutex<[SpaceID: Int32]>([:])

    /// The record `locator` names in the journal at `path`.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` when no whole, good frame of that
    ///   length is there any more (the journal was cut or rewritten under puffd),
    ///   ``StoreError/readFailed(_:)``.
    func read(_ locator: RecordLocator, in space: SpaceID, path: String) throws(StoreError) -> [UInt8] {
        let fd = try descriptor(space, path: path)
        let count = JournalFraming.frameOverhead + Int(locator.length)
        var frame = [UInt8](repeating: 0, count: count)
        let done: Int
        do throws(Errno) {
            done = try FileDescriptor(rawValue: fd).readFully(fromAbsoluteOffset: Int64(locator.offset), into: &frame)
        } catch {
            throw .readFailed("cannot read \(path): \(DurableFiles.describe(error.rawValue))")
        }
        guard done == count else {
            throw .damaged(file: path, offset: locator.offset, reason: "the journal ends before the record")
        }
        let length = frame.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard length == locator.length, FileRecordStore.framesAreGood(frame, from: 0, to: count) else {
            throw .damaged(file: path, offset: locator.offset, reason: "the record there changed since it was read")
        }
        return Array(frame[JournalFraming.frameOverhead...])
    }

    private func descriptor(_ space: SpaceID, path: String) throws(StoreError) -> Int32 {
        try descriptors.withLock { (open: inout [SpaceID: Int32]) throws(StoreError) -> Int32 in
            if let fd = open[space] { return fd }
            guard let fd = try DurableFiles.openRegular(path, O_RDONLY) else { throw .noSuchSpace(space) }
            open[space] = fd
            return fd
        }
    }

    /// Closes the descriptor of `space`'s journal: it is about to be replaced, moved or removed.
    func forget(_ space: SpaceID) {
        descriptors.withLock { if let fd = $0.removeValue(forKey: space) { close(fd) } }
    }

    /// Closes every descriptor (a restore replaces the vault's files).
    func forgetAll() {
        descriptors.withLock { open in
            for fd in open.values { close(fd) }
            open = [:]
        }
    }

    deinit { forgetAll() }
}
