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

    /// Writes `head` into the slot not written last, and flushes it.
    static func writeHead(
        _ head: [UInt8], of space: SpaceID, path: String, files: inout Files, sync: Sync
    ) throws(StoreError) {
        // Slot 1 first: a head replaced whole holds slot 0 only, which must outlive a torn write.
        let current: (fd: Int32, slot: Int)
        if let open = files.heads[space] {
            current = open
        } else {
            current = (try DurableFiles.openPrivate(path, O_RDWR | O_CREAT), 1)
        }
        files.heads[space] = current
        let frame = JournalFraming.frame(head)
        let offset = off_t(current.slot * FileRecordStore.headSlotSize)
        let written = frame.withUnsafeBytes { pwrite(current.fd, $0.baseAddress, $0.count, offset) }
        guard written == frame.count, sync(current.fd, .head(space)) == 0 else {
            // A short write on a full disk sets no errno. The turn stays with this slot, so the
            // other one, the newest whole head, is not overwritten next.
            throw DurableFiles.writeError("cannot write", path, written >= 0 && written < frame.count ? ENOSPC : errno)
        }
        files.heads[space] = (current.fd, 1 - current.slot)
    }
}
