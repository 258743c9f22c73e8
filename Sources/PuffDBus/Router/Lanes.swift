// SPDX-License-Identifier: Apache-2.0
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
        var queue: [Work] = []
        var head = 0
        var queuedCalls: Int { queue.count - head }
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
            guard var lane = lanes[sender], lane.head < lane.queue.count else {
                lanes[sender] = nil
                return nil
            }
            let work = lane.queue[lane.head]
            lane.head += 1
            if lane.head > 64, lane.head * 2 > lane.queue.count {
                lane.queue.removeFirst(lane.head)
                lane.head = 0
            }
            lanes[sender] = lane
            return work
        }
    }

    /// How many lanes exist (tests and diagnostics).
    var count: Int { lanes.withLock { $0.count } }
}
