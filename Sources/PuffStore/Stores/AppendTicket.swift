// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// An append queued with ``RecordStore/enqueueAppend(contentsOf:to:head:expecting:)``: awaited,
/// it returns once the records (and their head) are durable, or throws why they are not.
///
/// Tickets of one space complete in the order they were queued, and a failed append fails every
/// later one queued before the failure was seen (their generation is stale), so the journal never
/// holds a record that follows one that is not there.
public final class AppendTicket: Sendable {
    private struct State {
        var outcome: Result<Void, StoreError>?
        var generation: UInt64
        /// Where the append's first frame starts in the journal, once written.
        var offset: UInt64?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A ticket still waiting for its flush, for a journal at `generation`.
    package init(generation: UInt64) {
        state = Mutex(State(outcome: nil, generation: generation))
    }

    /// A ticket already settled: an append that was durable before it was handed out.
    package init(settled outcome: Result<Void, StoreError>, generation: UInt64, offset: UInt64? = nil) {
        state = Mutex(State(outcome: outcome, generation: generation, offset: offset))
    }

    /// Returns once the append is durable.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)`` or ``StoreError/refused(_:path:)``: the append, or
    ///   one queued before it, failed; the journal then ends where it ended before the failed one.
    public func durable() async throws(StoreError) {
        if let outcome = state.withLock({ $0.outcome }) { return try outcome.get() }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { state -> Bool in
                if state.outcome != nil { return true }
                state.waiters.append(waiter)
                return false
            }
            if settled { waiter.resume() }
        }
        try state.withLock { $0.outcome }!.get()
    }

    /// Whether it settled, and how: nil while its flush has not returned.
    public var outcome: Result<Void, StoreError>? { state.withLock { $0.outcome } }

    /// The journal's generation once it settled: higher than the one it was queued at when a
    /// write failed, so appends queued for the journal as it was are refused.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Where the append's first record's frame starts in the journal, once it settled with
    /// success (nil before, and from a store that does not say): with the records' lengths, where
    /// each of them is (``RecordLocator``).
    public var offset: UInt64? { state.withLock { $0.offset } }

    /// The locators of `records`, appended by this ticket in this order, once it settled with
    /// success; `sequences` are their chain sequences (nil for a format 1 journal).
    public func locators(of records: [[UInt8]], sequences: [UInt64?]) -> [RecordLocator]? {
        guard var offset else { return nil }
        var locators: [RecordLocator] = []
        for (record, sequence) in zip(records, sequences) {
            locators.append(RecordLocator(offset: offset, record: record, sequence: sequence))
            offset = locators[locators.count - 1].end
        }
        return locators
    }

    /// Settles it; returns who waits, to be resumed once every ticket of the group is settled.
    func settle(_ outcome: Result<Void, StoreError>, generation: UInt64, offset: UInt64? = nil)
        -> [CheckedContinuation<Void, Never>]
    {
        state.withLock { state in
            state.outcome = outcome
            state.generation = generation
            state.offset = offset
            defer { state.waiters = [] }
            return state.waiters
        }
    }
}
