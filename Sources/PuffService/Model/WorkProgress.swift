// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// How far a long piece of work has got (compaction, re-key, backup, restore, verify, import):
/// `done` of `total` units. Numbers only: no label, name, value or secret is ever part of one.
public struct WorkProgress: Sendable, Equatable {
    /// What is counted.
    public enum Unit: String, Sendable, CaseIterable {
        case records, items, bytes
    }

    public var done: UInt64
    public var total: UInt64
    public var unit: Unit

    /// A report of `done` of `total` `unit`.
    public init(done: UInt64, total: UInt64, unit: Unit) {
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// Where a caller wants progress reports. Called from any thread (the work runs off the service
/// actor, ``BlockingWork``), never more often than ``ProgressMeter`` lets through; it must not block.
public typealias ProgressHandler = @Sendable (WorkProgress) -> Void

/// Counts a piece of work and passes reports to a ``ProgressHandler``, throttled so that a
/// caller costs the service little: the first report at once (the caller learns the total), then
/// at most one per ``interval``, and always the last (`done == total`). Safe from any thread.
public final class ProgressMeter: Sendable {
    /// The least time between two reports, but the last.
    public static let interval: Duration = .milliseconds(100)

    private struct State {
        var done: UInt64 = 0
        var total: UInt64 = 0
        var lastSent: Duration?
        var finished = false
    }

    private let state = Mutex(State())
    private let unit: WorkProgress.Unit
    private let handler: ProgressHandler?
    private let now: @Sendable () -> Duration

    /// A meter of `unit` reporting to `handler` (nothing when nil), measuring time with `now`.
    public init(unit: WorkProgress.Unit, handler: ProgressHandler?, now: @escaping @Sendable () -> Duration) {
        self.unit = unit
        self.handler = handler
        self.now = now
    }

    /// Adds `count` units still to do.
    public func expect(_ count: Int) {
        guard handler != nil else { return }
        state.withLock { $0.total += UInt64(max(count, 0)) }
    }

    /// Replaces an `estimate` made with ``expect(_:)`` by the `actual` count once it is known.
    public func revise(_ estimate: Int, to actual: Int) {
        guard handler != nil else { return }
        state.withLock { state in
            state.total = UInt64(max(Int64(clamping: state.total) - Int64(estimate) + Int64(actual), 0))
            state.total = max(state.total, state.done)
        }
    }

    /// Counts `count` units done (none: only a report, such as the first one with the total);
    /// reports when the throttle allows.
    public func advance(by count: Int = 1) {
        guard let handler else { return }
        let report = state.withLock { state -> WorkProgress? in
            state.done += UInt64(max(count, 0))
            state.total = max(state.total, state.done)
            let time = now()
            if let last = state.lastSent, time - last < Self.interval { return nil }
            state.lastSent = time
            return WorkProgress(done: state.done, total: state.total, unit: unit)
        }
        report.map(handler)
    }

    /// Marks everything done and sends the last report, once.
    public func finish() {
        guard let handler else { return }
        let report = state.withLock { state -> WorkProgress? in
            guard !state.finished else { return nil }
            state.finished = true
            state.total = max(state.total, state.done)
            state.done = state.total
            return WorkProgress(done: state.done, total: state.total, unit: unit)
        }
        report.map(handler)
    }
}

extension SecretService {
    /// A meter of `unit` for `handler`, on the service's clock.
    func meter(_ unit: WorkProgress.Unit, _ handler: ProgressHandler?) -> ProgressMeter {
        let timeline = self.timeline
        return ProgressMeter(unit: unit, handler: handler, now: { timeline.now })
    }
}
