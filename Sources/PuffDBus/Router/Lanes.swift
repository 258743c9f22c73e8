// SPDX-License-Identifier: Apache-2.0
import DequeModule
import Synchronization

/// Per-connection queues of work: what one client sent runs in order, and a client that leaves
/// the bus has its departure queued behind its last call, so nothing it started is created after
/// its resources were released.
final class Lanes: Sendable {
    /// One unit of work in a lane.
    enum Work: Sendable {
        case call(IncomingMessage)
        /// The client left the bus; runs after everything it sent.
        case departure
    }

    /// What ``submit(_:from:)`` decided.
    enum Admission: Equatable {
        /// Queued behind a runner that is already draining the lane.
        case queued
        /// Queued; the caller must start a runner for the lane.
        case startRunner
        /// Refused: the lane already holds `limit` calls.
        case refused(limit: Int)
    }

    private struct Lane {
        var queue: Deque<Work> = []
        var queuedCalls: Int { queue.count }
    }

    private let limit: Int
    private let lanes = Mutex<[String: Lane]>([:])

    /// Lanes that hold at most `limit` waiting calls each.
    init(limit: Int) {
        self.limit = limit
    }

    /// Adds `work` to the lane of `sender`. A departure is never refused.
    func submit(_ work: Work, from sender: String) -> Admission {
        lanes.withLock { lanes in
            let exists = lanes[sender] != nil
            if case .call = work, let lane = lanes[sender], lane.queuedCalls >= limit {
                return .refused(limit: limit)
            }
            lanes[sender, default: Lane()].queue.append(work)
            return exists ? .queued : .startRunner
        }
    }

    /// The next work of `sender`'s lane, or nil after removing the drained lane (the runner then
    /// stops; the next submission starts a new one).
    func next(for sender: String) -> Work? {
        lanes.withLock { lanes in
            // Popped in place: a copy of the lane would copy its whole queue.
            guard let work = lanes[sender]?.queue.popFirst() else {
                lanes[sender] = nil
                return nil
            }
            return work
        }
    }

    /// Whether `sender` has nothing queued or running: a call of its may then be answered
    /// outside its lane without overtaking one it sent before.
    func isIdle(_ sender: String) -> Bool {
        lanes.withLock { $0[sender] == nil }
    }

    /// How many lanes exist (tests and diagnostics).
    var count: Int { lanes.withLock { $0.count } }
}
