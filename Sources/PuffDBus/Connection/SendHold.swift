// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// What a call's task queues with ``BusConnection/sendSoon(_:)`` while it runs: messages that leave
/// with its reply, on the reply's wake-up of the bus thread, instead of waking it once more each
/// (a write's `ItemCreated` and then its reply cost one wake-up, not two).
///
/// ``ObjectServer`` opens one around each call it serves and closes it before the reply is sent;
/// after that (and for tasks the call started that outlive it) messages are sent as usual. At most
/// ``limit`` messages wait on one hold, so a long call that emits many keeps them flowing.
public final class SendHold: Sendable {
    /// The hold of the call the current task serves, if any.
    @TaskLocal public static var current: SendHold?

    /// How many messages may wait on one hold.
    static let limit = 32

    private let state = Mutex<(isOpen: Bool, held: Int)>((true, 0))

    /// An open hold.
    public init() {}

    /// Runs `enqueue` (a queueing without a wake-up) if the hold is open and not full, under the
    /// lock ``close()`` takes, so nothing is queued unwoken after it closed; says whether it ran.
    func hold(_ enqueue: () -> Void) -> Bool {
        state.withLock { state in
            guard state.isOpen, state.held < Self.limit else { return false }
            state.held += 1
            enqueue()
            return true
        }
    }

    /// Ends the hold; the caller then wakes the loop (the reply does, or ``BusConnection/wakeIfQueued()``).
    public func close() {
        state.withLock { $0.isOpen = false }
    }
}
