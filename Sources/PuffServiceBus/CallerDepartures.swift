// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import Synchronization

/// The control connection's callers that left the bus, for calls that wait on a person: a
/// security key's wait for a touch is cancelled when the `puffctl` that asked for it is gone
/// (stopped with Ctrl-C), so the key stops blinking and a touch meant for something else later
/// opens nothing (docs/unlock-slots.md).
final class CallerDepartures: Sendable {
    /// How many departed names are kept for a call whose caller left before it was served
    /// (unique names are never reused on a bus).
    static let remembered = 256

    private struct State {
        var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        var departed: [String] = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Takes note of `signal` when it is the bus saying a unique name left.
    func notice(_ signal: IncomingMessage) {
        guard let name = ObjectServer.departedClient(signal) else { return }
        departed(name)
    }

    /// Ends the waits of `name`'s calls, and any that start later.
    func departed(_ name: String) {
        let waiters = state.withLock { state in
            state.departed.append(name)
            if state.departed.count > Self.remembered { state.departed.removeFirst() }
            return state.waiting.removeValue(forKey: name).map { Array($0.values) } ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `body` and returns what it returns; when `caller` leaves the bus first, `body` is
    /// cancelled and this throws ``HardwareError/cancelled`` once it has ended.
    func whileCallerStays<Value: Sendable>(
        _ caller: String, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                await self.departure(of: caller)
                return nil
            }
            // Whichever ends first, the other is cancelled; the group waits for it before it returns.
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                // The caller went: what the cancelled body ends with is nobody's answer.
                throw ServiceError.hardware(.cancelled)
            }
            return value
        }
    }

    /// Returns once `caller` has left the bus, or once the task is cancelled.
    private func departure(of caller: String) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || state.departed.contains(caller) { return true }
                    state.waiting[caller, default: [:]][id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiting[caller]?.removeValue(forKey: id)
                if state.waiting[caller]?.isEmpty == true { state.waiting[caller] = nil }
                return waiter
            }
            waiter?.resume()
        }
    }
}
