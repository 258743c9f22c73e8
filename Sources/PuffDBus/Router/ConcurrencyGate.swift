// SPDX-License-Identifier: Apache-2.0
import DequeModule
import Synchronization

/// Lets at most a fixed number of tasks past at once; the others wait in arrival order.
final class ConcurrencyGate: Sendable {
    private struct State: ~Copyable {
        var available: Int
        var waiters: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let state: Mutex<State>

    /// A gate that lets `width` tasks through at a time.
    init(width: Int) {
        precondition(width > 0, "a gate needs room for one task")
        state = Mutex(State(available: width))
    }

    /// How many tasks wait for room (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits for room, then takes it; pair every call with ``leave()``.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Gives the room back, directly to the longest waiter if there is one.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let next = state.waiters.popFirst() else {
                state.available += 1
                return nil
            }
            return next
        }
        next?.resume()
    }
}
