// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The committer's files: opening a journal at its logical end, and writing a head's slots.
extension JournalCommitter {
    /// The open journal of `space`: its end as the store noted it, else as its frames say.
    static func open(_ space: SpaceID, path: String, files: inout Files) throws(StoreError) -> Journal {
        if let journal = files.journals[space] { return journal }
        guard access(path, F_OK) == 0 else { throw .noSuchSpace(space) }
        let fd = try DurableFiles.openPrivate(path, O_WRONLY)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw .writeFailed("cannot stat \(path): \(DurableFiles.describe(errno))")
        }
        var end = Int(info.st_size)
        if let noted = files.ends.removeValue(forKey: space) {
            end = noted
        } else if let bytes = try? DurableFiles.readWhole(path), let version = JournalFraming.version(of: bytes),
            let parsed = try? JournalFraming.parse(
                bytes, file: path, preamble: JournalFraming.preamble(version: version))
        {
            end = parsed.goodEnd
        }
        let journal = Journal(fd: fd, end: end, size: Int(info.st_size))
        files.journals[space] = journal
        return journal
    }

    /// Writes `head` into the slot not written last, without flushing it: ``flushHead(_:files:sync:)``
    /// does that once the group's replies are out, and before the journal's next group is written.
    /// Written before the replies, so a killed puffd (whose writes the kernel still holds) leaves
    /// the head naming every acknowledged record; only a power cut in the flush's ~100 µs can
    /// leave it one group behind, which replay reads as appends never acknowledged.
    static func writeHead(_ head: [UInt8], of space: SpaceID, path: String, files: inout Files) throws(StoreError) {
        if files.heads[space] == nil {
            // Slot 1 first: a head replaced whole holds slot 0 only, which must outlive a torn write.
            files.heads[space] = (try DurableFiles.openPrivate(path, O_RDWR | O_CREAT), 1)
        }
        files.unflushedHeads[space] = UnflushedHead(frame: JournalFraming.frame(head), path: path, written: false)
        try putHead(of: space, files: &files)
    }

    /// Flushes the head ``writeHead(_:of:path:files:)`` wrote (writing it again if a failed flush
    /// may have dropped it); the next head then goes to the other slot.
    static func flushHead(of space: SpaceID, files: inout Files, sync: Sync) throws(StoreError) {
        guard let pending = files.unflushedHeads[space], let current = files.heads[space] else {
            files.unflushedHeads[space] = nil
            return
        }
        if !pending.written { try putHead(of: space, files: &files) }
        guard sync(current.fd, .head(space)) == 0 else {
            let error = DurableFiles.writeError("cannot write", pending.path, errno)
            // A failed flush may leave the pages marked clean: the next try writes them again.
            files.unflushedHeads[space]?.written = false
            throw error
        }
        files.unflushedHeads[space] = nil
        files.heads[space] = (current.fd, 1 - current.slot)
    }

    private static func putHead(of space: SpaceID, files: inout Files) throws(StoreError) {
        guard let pending = files.unflushedHeads[space], let current = files.heads[space] else { return }
        let offset = off_t(current.slot * FileRecordStore.headSlotSize)
        let written = pending.frame.withUnsafeBytes { pwrite(current.fd, $0.baseAddress, $0.count, offset) }
        guard written == pending.frame.count else {
            // A short write on a full disk sets no errno. The turn stays with this slot, so the
            // other one, the newest whole head, is not overwritten next.
            throw DurableFiles.writeError(
                "cannot write", pending.path, written >= 0 && written < pending.frame.count ? ENOSPC : errno)
        }
        files.unflushedHeads[space]?.written = true
    }
}
