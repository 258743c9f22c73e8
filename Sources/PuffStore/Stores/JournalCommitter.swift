// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffConcurrency
import Synchronization

/// Writes a ``FileRecordStore``'s journal appends in groups, on one thread of its own (design
/// core-reshaped §6): it takes everything queued, writes each journal's frames at its end, flushes
/// each touched journal once, writes its newest head, settles the group's tickets, and then
/// flushes the heads (§13: the head's flush after the reply), before the journal's next group is
/// written. Appends queued while a flush runs form the next group, so eight writers cost two
/// journal flushes, not eight. The thread is not one of the cooperative pool's, which a flush
/// would otherwise block.
///
/// Frames are written at the journal's logical end. With a zero tail, a journal that must grow is
/// extended with zeros ``zeroTail`` bytes at a time in the same flush, so most flushes rewrite data
/// blocks only, not the file's size (replay reads zeros where a frame should start as the end).
///
/// A failed write or flush fails its whole group; the journal is cut back to where the group
/// started (its zero tail too) and its generation goes up, so appends queued for the journal as it
/// was fail too.
package final class JournalCommitter: Sendable {
    /// Which file a flush is for (the test seam tells journals from heads).
    package enum Target: Sendable, Equatable {
        case journal(SpaceID)
        case head(SpaceID)
    }

    /// Flushes a descriptor's data: `fdatasync`, or a test's counting or failing stand-in.
    package typealias Sync = @Sendable (_ fd: Int32, _ target: Target) -> Int32

    struct Request {
        let space: SpaceID
        let journalPath: String
        let headPath: String
        let frames: [UInt8]
        let records: Int
        let head: [UInt8]?
        let generation: UInt64
        let ticket: AppendTicket
    }

    /// An open journal: where its records end, and how long the file is (its zero tail after).
    struct Journal {
        let fd: Int32
        var end: Int
        var size: Int
    }

    /// Descriptors the thread writes through; held while a group is written.
    struct Files {
        var journals: [SpaceID: Journal] = [:]
        /// Logical ends the store read (replay, rewrite), for journals not open yet.
        var ends: [SpaceID: Int] = [:]
        /// Open head descriptors and the slot each writes next.
        var heads: [SpaceID: (fd: Int32, slot: Int)] = [:]
        /// Heads written for a group whose tickets settled, not flushed yet.
        var unflushedHeads: [SpaceID: UnflushedHead] = [:]
    }

    /// A head written (or to be written again) into its slot, waiting for its flush.
    struct UnflushedHead {
        let frame: [UInt8]
        let path: String
        var written: Bool
    }

    private let queue = Mutex<(requests: [Request], stopping: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)
    let files = Mutex(Files())
    /// Each journal's generation; its own lock, so queueing never waits for a flush.
    private let generations = Mutex<[SpaceID: UInt64]>([:])
    private let sync: Sync
    /// Boxed: a closure kept in a `Mutex` directly is re-wrapped in a reabstraction thunk at each
    /// `withLock`, so after n flushes a call went through 2n thunks (perf: a 10,000-item fill took
    /// 42 s instead of 8).
    private final class FlushHook: Sendable {
        let body: @Sendable (_ space: SpaceID, _ records: Int) -> Void
        init(_ body: @escaping @Sendable (_ space: SpaceID, _ records: Int) -> Void) { self.body = body }
    }
    private let flushed = Mutex<FlushHook?>(nil)
    /// How many zero bytes a growing journal is extended by at once; 0: none (the file ends at its
    /// last record).
    let zeroTail: Int

    /// Starts the thread.
    init(sync: @escaping Sync = { fd, _ in fdatasync(fd) }, zeroTail: Int = 0) {
        self.sync = sync
        self.zeroTail = zeroTail
        DedicatedThread.start("the journal committer thread") { [self] in run() }
    }

    /// Calls `body` after each journal flush with how many records it made durable (puffd logs
    /// it at debug level: how the end-to-end test sees that grouping happened).
    func onFlush(_ body: @escaping @Sendable (_ space: SpaceID, _ records: Int) -> Void) {
        let hook = FlushHook(body)
        flushed.withLock { $0 = hook }
    }

    /// The journal's current generation.
    func generation(of space: SpaceID) -> UInt64 {
        generations.withLock { $0[space] ?? 0 }
    }

    /// Queues `request` behind every earlier one.
    func submit(_ request: Request) {
        queue.withLock { $0.requests.append(request) }
        wake.signal()
    }

    /// How many appends wait for the thread (tests use it as a hold point).
    package var queued: Int { queue.withLock { $0.requests.count } }

    /// Notes where the journal's records end, as the store just read or wrote it; ignored once the
    /// journal is open here (this thread keeps its end from then on).
    func noteEnd(_ end: Int, of space: SpaceID) {
        files.withLock { files in
            if files.journals[space] == nil { files.ends[space] = end }
        }
    }

    /// Where the journal's records end, when known here (open, or noted by the store).
    func end(of space: SpaceID) -> Int? {
        files.withLock { $0.journals[space]?.end ?? $0.ends[space] }
    }

    /// Closes the space's descriptors once the group being written (if any) is done: the files
    /// are about to be replaced, moved or removed.
    func forget(_ space: SpaceID) {
        files.withLock { files in
            files.ends[space] = nil
            files.unflushedHeads[space] = nil
            if let journal = files.journals.removeValue(forKey: space) { close(journal.fd) }
            if let head = files.heads.removeValue(forKey: space) { close(head.fd) }
        }
    }

    /// Closes the space's head descriptor once the group being written (if any) is done: the head
    /// file is about to be replaced.
    func forgetHead(_ space: SpaceID) {
        files.withLock { files in
            files.unflushedHeads[space] = nil
            if let head = files.heads.removeValue(forKey: space) { close(head.fd) }
        }
    }

    /// Closes every descriptor (a restore replaces the vault's files).
    func forgetAll() {
        files.withLock { files in
            for journal in files.journals.values { close(journal.fd) }
            for head in files.heads.values { close(head.fd) }
            files.journals = [:]
            files.ends = [:]
            files.heads = [:]
            files.unflushedHeads = [:]
        }
    }

    /// Ends the thread once what is queued is written, and closes the descriptors.
    func stop() {
        queue.withLock { $0.stopping = true }
        wake.signal()
    }

    // MARK: - The thread

    private func run() {
        while true {
            wake.wait()
            let (batch, stopping) = queue.withLock { queue in
                defer { queue.requests = [] }
                return (queue.requests, queue.stopping)
            }
            if !batch.isEmpty { write(batch) }
            if stopping, queued == 0 {
                forgetAll()
                return
            }
        }
    }

    /// Writes one group: per journal, in the order first queued.
    private func write(_ batch: [Request]) {
        var spaces: [SpaceID] = []
        var bySpace: [SpaceID: [Request]] = [:]
        for request in batch {
            if bySpace[request.space] == nil { spaces.append(request.space) }
            bySpace[request.space, default: []].append(request)
        }
        var waiters: [CheckedContinuation<Void, Never>] = []
        var flushes: [(SpaceID, Int)] = []
        files.withLock { files in
            for space in spaces {
                let requests = bySpace[space]!
                let generation = generation(of: space)
                // Queued before a failure was seen: their records would follow one not written.
                let stale = requests.filter { $0.generation != generation }
                let current = requests.filter { $0.generation == generation }
                for request in stale {
                    waiters += request.ticket.settle(
                        .failure(.staleGeneration(space, expected: request.generation, current: generation)),
                        generation: generation)
                }
                guard !current.isEmpty else { continue }
                let written = Self.append(current, space: space, files: &files, sync: sync, zeroTail: zeroTail)
                let outcome = written.map { _ in () }
                if case .failure = outcome { generations.withLock { $0[space] = generation + 1 } }
                // Each request's frames follow the previous one's: where its first one starts.
                var offset = try? written.get()
                for request in current {
                    waiters += request.ticket.settle(outcome, generation: self.generation(of: space), offset: offset)
                    offset = offset.map { $0 + UInt64(request.frames.count) }
                }
                if case .success = outcome { flushes.append((space, current.reduce(0) { $0 + $1.records })) }
            }
        }
        if let report = flushed.withLock({ $0 }) {
            for (space, records) in flushes { report.body(space, records) }
        }
        for waiter in waiters { waiter.resume() }
        // The replies go out while the heads are flushed. One that fails is tried again before
        // its journal's next group, which fails if it fails again.
        files.withLock { files in
            for space in Array(files.unflushedHeads.keys) {
                try? Self.flushHead(of: space, files: &files, sync: sync)
            }
        }
    }

    /// Writes `requests`' frames at the journal's logical end (extending its zero tail first when
    /// they do not fit), flushes it, then writes the newest head. Returns where the first frame
    /// starts.
    private static func append(
        _ requests: [Request], space: SpaceID, files: inout Files, sync: Sync, zeroTail: Int
    ) -> Result<UInt64, StoreError> {
        let path = requests[0].journalPath
        var journal: Journal
        do throws(StoreError) {
            journal = try open(space, path: path, files: &files)
        } catch {
            return .failure(error)
        }
        // The previous group's head is durable before this group's frames are written, so a torn
        // group always follows a head naming the record before it.
        do throws(StoreError) {
            try flushHead(of: space, files: &files, sync: sync)
        } catch {
            return .failure(error)
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
            // After the records: a crash between the two leaves a head one group behind, which
            // reads as appends never acknowledged, never as records lost.
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
