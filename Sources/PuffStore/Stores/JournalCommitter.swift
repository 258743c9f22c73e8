// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffConcurrency
import Synchronization

/// Writes a ``FileRecordStore``'s journal appends in groups, on one thread of its own (design
/// core-reshaped §6): it takes everything queued, writes each journal's frames at its end, flushes
/// each touched journal once, writes and flushes its newest head, and only then settles the
/// group's tickets. Appends queued while a flush runs form the next group, so eight writers cost
/// two flushes, not eight. The thread is not one of the cooperative pool's, which a flush would
/// otherwise block.
///
/// A failed write or flush fails its whole group; the journal is cut back to where the group
/// started and its generation goes up, so appends queued for the journal as it was fail too.
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

    /// Descriptors the thread writes through; held while a group is written.
    struct Files {
        var journals: [SpaceID: Int32] = [:]
        /// Open head descriptors and the slot each writes next.
        var heads: [SpaceID: (fd: Int32, slot: Int)] = [:]
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

    /// Starts the thread.
    init(sync: @escaping Sync = { fd, _ in fdatasync(fd) }) {
        self.sync = sync
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

    /// Closes the space's descriptors once the group being written (if any) is done: the files
    /// are about to be replaced, moved or removed.
    func forget(_ space: SpaceID) {
        files.withLock { files in
            if let fd = files.journals.removeValue(forKey: space) { close(fd) }
            if let head = files.heads.removeValue(forKey: space) { close(head.fd) }
        }
    }

    /// Closes every descriptor (a restore replaces the vault's files).
    func forgetAll() {
        files.withLock { files in
            for fd in files.journals.values { close(fd) }
            for head in files.heads.values { close(head.fd) }
            files.journals = [:]
            files.heads = [:]
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
                        .failure(.writeFailed("an earlier write to \(request.journalPath) failed")),
                        generation: generation)
                }
                guard !current.isEmpty else { continue }
                let outcome = Self.append(current, space: space, files: &files, sync: sync)
                if case .failure = outcome { generations.withLock { $0[space] = generation + 1 } }
                for request in current {
                    waiters += request.ticket.settle(outcome, generation: self.generation(of: space))
                }
                if case .success = outcome { flushes.append((space, current.reduce(0) { $0 + $1.records })) }
            }
        }
        if let report = flushed.withLock({ $0 }) {
            for (space, records) in flushes { report.body(space, records) }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Writes `requests`' frames at the journal's end, flushes it, then writes the newest head.
    private static func append(
        _ requests: [Request], space: SpaceID, files: inout Files, sync: Sync
    ) -> Result<Void, StoreError> {
        let path = requests[0].journalPath
        let fd: Int32
        do throws(StoreError) {
            fd = try descriptor(space, path: path, files: &files)
        } catch {
            return .failure(error)
        }
        let before = lseek(fd, 0, SEEK_END)
        guard before >= 0 else { return .failure(.writeFailed("cannot seek \(path): \(DurableFiles.describe(errno))")) }
        do throws(StoreError) {
            var frames: [UInt8] = []
            frames.reserveCapacity(requests.reduce(0) { $0 + $1.frames.count })
            for request in requests { frames += request.frames }
            try DurableFiles.writeAll(fd, frames, path: path)
            guard sync(fd, .journal(space)) == 0 else { throw DurableFiles.writeError("cannot fsync", path, errno) }
            // After the records: a crash between the two leaves a head one group behind, which
            // reads as appends never acknowledged, never as records lost.
            if let head = requests.last(where: { $0.head != nil }) {
                try writeHead(head.head!, of: space, path: head.headPath, files: &files, sync: sync)
            }
            return .success(())
        } catch {
            // Leave the journal ending where it ended, so the next append does not follow a
            // half-written frame. If even this fails, replay cuts the torn tail.
            _ = ftruncate(fd, before)
            _ = sync(fd, .journal(space))
            return .failure(error)
        }
    }

    private static func descriptor(_ space: SpaceID, path: String, files: inout Files) throws(StoreError) -> Int32 {
        if let fd = files.journals[space] { return fd }
        guard access(path, F_OK) == 0 else { throw .noSuchSpace(space) }
        let fd = try DurableFiles.openPrivate(path, O_WRONLY | O_APPEND)
        files.journals[space] = fd
        return fd
    }

    /// Writes `head` into the slot not written last, and flushes it.
    private static func writeHead(
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
