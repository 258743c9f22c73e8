// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The committer's files: opening a journal at its logical end, and writing a group there.
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

    /// Writes `requests`' frames at the journal's logical end (extending its zero tail first when
    /// they do not fit), flushes it, then writes the newest head. Returns where the first frame
    /// starts.
    static func append(
        _ requests: [Request], space: SpaceID, files: inout Files, sync: Sync, zeroTail: Int
    ) -> Result<UInt64, StoreError> {
        let path = requests[0].journalPath
        var journal: Journal
        do throws(StoreError) {
            journal = try open(space, path: path, files: &files)
        } catch {
            return .failure(error)
        }
        // A head whose flush failed is tried again first: its error is this group's.
        if files.unflushedHeads[space]?.failed == true {
            do throws(StoreError) {
                try flushHead(of: space, files: &files, sync: sync)
            } catch {
                return .failure(error)
            }
        }
        let before = journal.end
        do throws(StoreError) {
            var frames: [UInt8] = []
            frames.reserveCapacity(requests.reduce(0) { $0 + $1.frames.count })
            for request in requests { frames += request.frames }
            let end = before + frames.count
            if end > journal.size, zeroTail > 0 {
                // Zeros past the new end, to a whole number of steps; this flush writes the new size
                // once, and the next ones (about 2,700 item records per MiB) only data blocks.
                let grown = (end + zeroTail - 1) / zeroTail * zeroTail
                do {
                    try DurableFiles.writeAll(
                        journal.fd, [UInt8](repeating: 0, count: grown - end), at: end, path: path)
                    journal.size = grown
                } catch {
                    // No room for the zeros (a full disk, a file size limit): the records alone
                    // may still fit, and whether they do is this write's answer.
                    _ = ftruncate(journal.fd, off_t(journal.size))
                }
            }
            try DurableFiles.writeAll(journal.fd, frames, at: before, path: path)
            journal.size = max(journal.size, end)
            guard sync(journal.fd, .journal(space)) == 0 else {
                throw DurableFiles.writeError("cannot fsync", path, errno)
            }
            journal.end = end
            files.journals[space] = journal
            // After the records: a crash between the two, or a power cut before the head's flush,
            // leaves a head behind, which reads as appends never acknowledged, never as records
            // lost (JournalFraming.ZeroTail).
            if let head = requests.last(where: { $0.head != nil }) {
                try writeHead(head.head!, of: space, path: head.headPath, files: &files)
            }
            return .success(UInt64(before))
        } catch {
            // Leave the journal ending where it ended, so the next append does not follow a
            // half-written frame. If even this fails, replay cuts the torn tail.
            files.unflushedHeads[space] = nil  // it would name records no longer there
            _ = ftruncate(journal.fd, off_t(before))
            _ = sync(journal.fd, .journal(space))
            files.journals[space] = Journal(fd: journal.fd, end: before, size: before)
            return .failure(error)
        }
    }
}
