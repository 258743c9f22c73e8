// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc

/// The committer's heads: each group's newest head is written into a slot before the group's
/// replies and flushed later, once appends pause (docs/vault-format.md, Framing; design
/// core-reshaped §13). Until then every head goes to the same slot, so the other one keeps the
/// newest flushed head whatever a power cut tears.
extension JournalCommitter {
    /// When the thread flushes the heads it wrote.
    package struct HeadFlush: Sendable {
        /// How long the thread waits for another append before it flushes; nil: only at
        /// ``atMost`` and at stop.
        package var idle: Duration?
        /// How long a head may stay unflushed while appends keep coming.
        package var atMost: Duration

        package init(idle: Duration?, atMost: Duration) {
            self.idle = idle
            self.atMost = atMost
        }

        /// puffd's: after 20 ms without an append, and at least once a second. A single client's
        /// back-to-back writes then cost one `fdatasync` each, not two.
        package static let puffd = HeadFlush(idle: .milliseconds(20), atMost: .seconds(1))
    }

    /// Writes `head` into the slot not flushed last, without flushing it: ``flushHeads(files:sync:)``
    /// does, once appends pause (at once for the descriptor's first head: the file may be new). Written before the replies, so a killed puffd (whose writes the
    /// kernel still holds) leaves the head naming every acknowledged record; only a power cut
    /// before the flush can leave it behind, which replay reads as appends never acknowledged.
    static func writeHead(_ head: [UInt8], of space: SpaceID, path: String, files: inout Files) throws(StoreError) {
        let isFirst = files.heads[space] == nil
        if isFirst {
            // Slot 1 first: a head replaced whole holds slot 0 only, which must outlive a torn write.
            files.heads[space] = (try DurableFiles.openPrivate(path, O_RDWR | O_CREAT), 1)
        }
        files.unflushedHeads[space] = UnflushedHead(
            frame: JournalFraming.frame(head), path: path, written: false,
            isFirst: isFirst || files.unflushedHeads[space]?.isFirst == true)
        try putHead(of: space, files: &files)
    }

    /// Flushes every head written and not flushed yet. One whose flush fails is tried again before
    /// its journal's next group, which fails if it fails again.
    static func flushHeads(files: inout Files, sync: Sync) {
        for space in Array(files.unflushedHeads.keys) {
            do throws(StoreError) {
                try flushHead(of: space, files: &files, sync: sync)
            } catch {
                files.unflushedHeads[space]?.failed = true
            }
        }
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

    /// Whether heads written at `since` and not flushed yet are flushed now, whatever is queued.
    static func overdue(since: DispatchTime, policy: HeadFlush) -> Bool {
        since + nanoseconds(policy.atMost) <= .now()
    }

    /// Until when the thread waits for an append before it flushes the heads, written at `since`
    /// and not flushed yet.
    static func deadline(since: DispatchTime, policy: HeadFlush) -> DispatchTime {
        let latest = since + nanoseconds(policy.atMost)
        guard let idle = policy.idle else { return latest }
        return min(latest, .now() + nanoseconds(idle))
    }

    private static func nanoseconds(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(min(seconds, 1 << 30)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
