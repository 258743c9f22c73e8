// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// One of the few slots D-Bus calls run in (`ObjectServer.Limits.concurrentCalls`), held by the
/// task that runs a call (issue 24 item 10).
///
/// A call that waits on something outside puffd (a person's answer, a passcode pipe, a
/// wrong-passcode delay, its turn behind another attempt) gives its slot back for the wait with
/// ``released(_:)`` and takes one again after it, so waits never stall unrelated calls; only work
/// that uses the machine (a key derivation, a write) keeps it.
///
/// Tasks started during a call inherit ``current``; once the call has ended (``finish()``) their
/// waits neither give nor take a slot.
public final class CallSlot: Sendable {
    /// The slot of the call the current task runs; nil outside a call.
    @TaskLocal public static var current: CallSlot?

    private struct State {
        /// Waits in progress; the slot is given back while there is at least one.
        var waits = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let giveBack: @Sendable () -> Void
    private let takeAgain: @Sendable () async -> Void

    /// A slot that is held now: `giveBack` returns it to its gate, `takeAgain` waits for one.
    public init(giveBack: @escaping @Sendable () -> Void, takeAgain: @escaping @Sendable () async -> Void) {
        self.giveBack = giveBack
        self.takeAgain = takeAgain
    }

    /// Runs `body`, a wait, without holding the current call's slot (when there is one), on the
    /// caller's actor.
    public static func released<Value, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard let slot = current, slot.beginWait() else { return try await body() }
        do throws(Failure) {
            let value = try await body()
            await slot.endWait()
            return value
        } catch {
            await slot.endWait()
            throw error
        }
    }

    /// Ends the call: returns whether its slot is still held (and must go back to the gate).
    public func finish() -> Bool {
        state.withLock { state in
            state.finished = true
            return state.waits == 0
        }
    }

    /// Counts a wait; the first gives the slot back. False once the call has ended.
    private func beginWait() -> Bool {
        let (counted, give) = state.withLock { state -> (Bool, Bool) in
            guard !state.finished else { return (false, false) }
            state.waits += 1
            return (true, state.waits == 1)
        }
        if give { giveBack() }
        return counted
    }

    /// Ends a wait; the last takes a slot again, unless the call ended meanwhile.
    private func endWait() async {
        let take = state.withLock { state -> Bool in
            state.waits -= 1
            return state.waits == 0 && !state.finished
        }
        guard take else { return }
        await takeAgain()
        // The call may have ended while this waited for a slot (a task it started): nobody
        // would give that slot back.
        if state.withLock({ $0.finished && $0.waits == 0 }) { giveBack() }
    }
}
