// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import Synchronization

/// Sends a lock change's item signals: up to ``atOnce`` before the reply of the call that caused
/// it (or its `Prompt.Completed`), the rest from a task of its own in slices of as many, so that
/// the reply and other messages go out between them (docs/design/core-reshaped.md §3).
///
/// Messages leave in the order they were handed over: a lock change that comes while an earlier
/// one's slices are still waiting first sends those, so a connection never sees an item's older
/// `Locked` after its newer one. Sending only queues a message for the bus thread, so it is done
/// under the lock that keeps that order.
final class SignalOutbox: Sendable {
    /// Item signals sent at once, and per slice afterwards.
    static let atOnce = 1000

    private struct State {
        var waiting: [OutgoingMessage] = []
        var next = 0
        var draining = false
    }

    private let send: @Sendable (OutgoingMessage) -> Void
    private let state = Mutex(State())

    init(send: @escaping @Sendable (OutgoingMessage) -> Void) {
        self.send = send
    }

    /// Sends what still waits, then the first ``atOnce`` of `first`, then `then` (the collection's
    /// signals, for clients that act on them to find the items already changed), and queues the
    /// rest of `first` for slices after the caller's reply.
    func deliver(_ first: [OutgoingMessage], then: [OutgoingMessage]) {
        let startDraining = state.withLock { state -> Bool in
            while state.next < state.waiting.count {
                send(state.waiting[state.next])
                state.next += 1
            }
            state.waiting.removeAll(keepingCapacity: false)
            state.next = 0
            for message in first.prefix(Self.atOnce) { send(message) }
            for message in then { send(message) }
            guard first.count > Self.atOnce else { return false }
            state.waiting = Array(first.dropFirst(Self.atOnce))
            defer { state.draining = true }
            return !state.draining
        }
        if startDraining { Task { await self.drain() } }
    }

    /// Sends the waiting messages a slice at a time, letting other work run between slices.
    private func drain() async {
        while true {
            await Task.yield()
            let more = state.withLock { state -> Bool in
                let end = min(state.next + Self.atOnce, state.waiting.count)
                while state.next < end {
                    send(state.waiting[state.next])
                    state.next += 1
                }
                guard state.next < state.waiting.count else {
                    state.waiting.removeAll(keepingCapacity: false)
                    state.next = 0
                    state.draining = false
                    return false
                }
                return true
            }
            guard more else { return }
        }
    }

    /// How many messages wait for a slice (tests).
    var waitingCount: Int { state.withLock { $0.waiting.count - $0.next } }
}
