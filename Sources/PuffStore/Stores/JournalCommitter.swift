// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffConcurrency
import Synchronization

/// Writes a ``FileRecordStore``'s journal appends in groups, on one thread of its own (design
/// core-reshaped §6): it takes everything queued, writes each journal's frames at its end, flushes
/// each touched journal once, writes its newest head and settles the group's tickets. The heads
/// are flushed once appends pause (``HeadFlush``; §13: the head's flush off the reply path), so a
/// single client's writes cost one flush each. Appends queued while a flush runs form the next
/// group, so eight writers cost two journal flushes, not eight. The thread is not one of the
/// cooperative pool's, which a flush would otherwise block.
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
        /// Its last flush failed: the journal's next group waits for it (and fails with it).
        var failed = false
        /// The first head written through this descriptor (a new collection's, or after the file
        /// was replaced): flushed at once, so a power cut cannot leave the file missing or empty.
        var isFirst = false
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
    let headFlush: HeadFlush

    /// Starts the thread.
    init(sync: @escaping Sync = { fd, _ in fdatasync(fd) }, zeroTail: Int = 0, headFlush: HeadFlush = .puffd) {
        self.sync = sync
        self.zeroTail = zeroTail
        self.headFlush = headFlush
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

    /// Flushes the heads written so far now, on the caller's thread (a clean stop).
    func flushHeads() {
        files.withLock { Self.flushHeads(files: &$0, sync: sync) }
    }

    /// Ends the thread once what is queued is written and the heads flushed, and closes the
    /// descriptors.
    func stop() {
        queue.withLock { $0.stopping = true }
        wake.signal()
    }

    // MARK: - The thread

    /// Whether a head written is its descriptor's first (``UnflushedHead/isFirst``).
    private var hasFirstHead: Bool {
        files.withLock { $0.unflushedHeads.values.contains { $0.isFirst } }
    }

    private func run() {
        // When the oldest head not flushed yet was written.
        var unflushedSince: DispatchTime?
        while true {
            if let since = unflushedSince {
                if wake.wait(timeout: Self.deadline(since: since, policy: headFlush)) == .timedOut {
                    files.withLock { Self.flushHeads(files: &$0, sync: sync) }
                    unflushedSince = nil
                    continue
                }
            } else {
                wake.wait()
            }
            let (batch, stopping) = queue.withLock { queue in
                defer { queue.requests = [] }
                return (queue.requests, queue.stopping)
            }
            if !batch.isEmpty {
                write(batch)
                let unflushed = files.withLock { !$0.unflushedHeads.isEmpty }
                unflushedSince = unflushed ? (unflushedSince ?? .now()) : nil
                if let since = unflushedSince, Self.overdue(since: since, policy: headFlush) || hasFirstHead {
                    files.withLock { Self.flushHeads(files: &$0, sync: sync) }
                    unflushedSince = nil
                }
            }
            if stopping, queued == 0 {
                files.withLock { Self.flushHeads(files: &$0, sync: sync) }
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
    }
}
