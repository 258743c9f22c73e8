// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A turn taken in order by async callers: what keeps a fleet space's remote entries and local
/// appends in one order while each waits on the network (an actor would let the next call in at
/// every `await`).
final class FleetTurn: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every turn taken before has ended; the turn ends when it returns or throws.
    func run<T>(_ body: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        await take()
        defer { give() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(waiter)
                    return false
                }
                state.held = true
                return true
            }
            if now { waiter.resume() }
        }
    }

    /// Hands the turn to the first waiter (it stays held), or frees it.
    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
