// SPDX-License-Identifier: Apache-2.0
public import Logging
import PuffConcurrency
import Synchronization

/// Serves a ``Router`` on a ``BusConnection`` in per-client lanes (architecture.md Part A item 10).
///
/// Calls from one connection run in the order they arrived, so a client's replies, and the
/// signals its calls cause, leave in the order it sent them. Calls from different connections run
/// concurrently, at most ``Limits/concurrentCalls`` at a time, so one client's slow call (an
/// `fsync`, a key derivation) never stalls another; a call that waits (on a person, a pipe, a
/// delay) gives its slot back meanwhile (``CallSlot``). `Peer` calls are answered at once and
/// `Introspect` runs beside the lanes, so neither ever waits behind one.
public struct ObjectServer: Sendable {
    /// How much work clients can queue and run.
    public struct Limits: Sendable {
        /// Calls of different connections that may run at the same time.
        public var concurrentCalls: Int
        /// Calls one connection may have waiting; more are refused with `LimitsExceeded`.
        public var queuedCallsPerClient: Int
        /// `Introspect` calls that may be running at once, across all clients.
        public var concurrentIntrospections: Int

        /// Creates limits; the defaults are puffd's.
        public init(concurrentCalls: Int = 8, queuedCallsPerClient: Int = 16_384, concurrentIntrospections: Int = 64) {
            self.concurrentCalls = concurrentCalls
            self.queuedCallsPerClient = queuedCallsPerClient
            self.concurrentIntrospections = concurrentIntrospections
        }
    }

    private let connection: BusConnection
    private let router: Router
    private let callers: CallerDirectory
    private let limits: Limits
    private let onClientLeft: @Sendable (String) async -> Void
    private let onSignal: @Sendable (IncomingMessage) async -> Void
    private let waitBefore: @Sendable (IncomingMessage) async -> Void
    private let fastPath: FastPath?
    private let refusals: RefusalLog

    /// Answers a call on the bus thread, or nil to send it to the caller's lane.
    public typealias FastPath = @Sendable (IncomingMessage, CallContext) -> OutgoingMessage?

    /// Creates a server; nothing runs until ``run()``.
    ///
    /// - Parameters:
    ///   - callers: Where call contexts come from; dropped for clients that leave.
    ///   - onClientLeft: Runs, in the client's lane after its last call, when a unique name
    ///     leaves the bus (`NameOwnerChanged` with an empty new owner).
    ///   - onSignal: Every signal received, in arrival order.
    ///   - waitBefore: Awaited in the caller's lane before each call there runs, holding no slot
    ///     (puffd's calls wait for the vault to load); later calls of that client wait behind it.
    ///   - fastPath: Tried on the bus thread for a call whose sender has nothing in its lane and
    ///     whose context is known; its reply is sent at once, and nil sends the call to the lane.
    ///   - logger: Where refusals for a limit are noted (the first per connection, then a count).
    public init(
        connection: BusConnection,
        router: Router,
        callers: CallerDirectory,
        limits: Limits = Limits(),
        logger: Logger = Logger(label: "puff.dbus", factory: { _ in SwiftLogNoOpLogHandler() }),
        onClientLeft: @escaping @Sendable (String) async -> Void = { _ in },
        onSignal: @escaping @Sendable (IncomingMessage) async -> Void = { _ in },
        waitBefore: @escaping @Sendable (IncomingMessage) async -> Void = { _ in },
        fastPath: FastPath? = nil
    ) {
        self.connection = connection
        self.router = router
        self.callers = callers
        self.limits = limits
        self.onClientLeft = onClientLeft
        self.onSignal = onSignal
        self.waitBefore = waitBefore
        self.fastPath = fastPath
        refusals = RefusalLog(logger: logger)
    }

    /// Serves until the connection closes.
    ///
    /// Method calls are taken on the bus thread as they arrive (``BusConnection/setMethodCallHandler(_:)``):
    /// `Peer` calls are answered there and then, `Introspect` starts a task of its own, everything
    /// else joins its client's lane, whose runner is a task. Signals arrive here, in order.
    public func run() async {
        let lanes = Lanes(limit: limits.queuedCallsPerClient)
        let gate = ConcurrencyGate(width: limits.concurrentCalls)
        let introspections = RunningCount()
        let accept: @Sendable (IncomingMessage) -> Void = { message in
            guard let sender = message.sender else { return }
            if let reply = router.peerReply(to: message) {
                connection.send(reply)
            } else if Router.isIntrospection(message) {
                introspect(message, sender: sender, count: introspections)
            } else if let reply = Self.fastReply(to: message, from: sender, lanes: lanes, callers: callers, fastPath) {
                connection.send(reply)
            } else {
                submit(.call(message), from: sender, lanes: lanes, gate: gate)
            }
        }
        connection.setMethodCallHandler(accept)
        for await message in connection.messages {
            switch message.kind {
            case .methodCall:
                accept(message)  // arrived before the handler was installed, on a connection not holding calls
            case .signal:
                if let departed = Self.departedClient(message) {
                    submit(.departure, from: departed, lanes: lanes, gate: gate)
                }
                await onSignal(message)
            case .methodReturn, .error, .unknown:
                break  // replies to our own calls are routed by the connection; unknown types ignored
            }
        }
        connection.setMethodCallHandler(nil)
    }

    /// The reply `fastPath` gives on the bus thread, when it may answer: `sender`'s lane is empty
    /// (an earlier call of its is never overtaken) and its context is known (no wait for the bus).
    static func fastReply(
        to message: IncomingMessage, from sender: String, lanes: Lanes, callers: CallerDirectory, _ fastPath: FastPath?
    ) -> OutgoingMessage? {
        guard let fastPath, lanes.isIdle(sender), let context = callers.cachedContext(for: sender) else { return nil }
        return fastPath(message, context)
    }

    private func submit(_ work: Lanes.Work, from sender: String, lanes: Lanes, gate: ConcurrencyGate) {
        switch lanes.submit(work, from: sender) {
        case .queued:
            break
        case .refused(let limit):
            if case .call(let message) = work, message.expectsReply {
                let error = DBusError(.limitsExceeded, "at most \(limit) calls may wait per connection")
                let reply = OutgoingMessage.error(to: message, error)
                refusals.note(reply, from: sender)
                connection.send(reply)
            }
        case .startRunner:
            Task { await drain(sender, lanes: lanes, gate: gate) }
        }
    }

    /// Runs `sender`'s lane until it is empty.
    private func drain(_ sender: String, lanes: Lanes, gate: ConcurrencyGate) async {
        while let work = lanes.next(for: sender) {
            switch work {
            case .call(let message):
                await waitBefore(message)
                let context = await callers.context(for: sender)
                await gate.enter()
                let slot = CallSlot(giveBack: { gate.leave() }, takeAgain: { await gate.enter() })
                // Signals the call causes leave with its reply, on one wake-up of the bus thread.
                let hold = SendHold()
                let reply = await SendHold.$current.withValue(hold) {
                    await CallSlot.$current.withValue(slot) {
                        await router.handle(message, context: context, send: { connection.send($0) })
                    }
                }
                hold.close()
                if slot.finish() { gate.leave() }
                if let reply {
                    refusals.note(reply, from: sender)
                    connection.send(reply)
                } else {
                    connection.wakeIfQueued()
                }
            case .departure:
                callers.forget(sender)
                refusals.departed(sender)
                await onClientLeft(sender)
            }
        }
    }

    private func introspect(_ message: IncomingMessage, sender: String, count: RunningCount) {
        let running = count.value.add(1, ordering: .relaxed).newValue
        guard running <= limits.concurrentIntrospections else {
            count.value.subtract(1, ordering: .relaxed)
            if message.expectsReply {
                let error = DBusError(
                    .limitsExceeded, "at most \(limits.concurrentIntrospections) introspections may run at once")
                connection.send(.error(to: message, error))
            }
            return
        }
        Task {
            let context = await callers.context(for: sender)
            if let reply = await router.handle(message, context: context) { connection.send(reply) }
            count.value.subtract(1, ordering: .relaxed)
        }
    }

    /// The unique name that left the bus, when `message` is `NameOwnerChanged` saying so.
    public static func departedClient(_ message: IncomingMessage) -> String? {
        guard message.sender == "org.freedesktop.DBus", message.interface == "org.freedesktop.DBus",
            message.member == "NameOwnerChanged", message.arguments.count == 3,
            case .string(let name) = message.arguments[0], name.hasPrefix(":"),
            case .string("") = message.arguments[2]
        else { return nil }
        return name
    }
}

/// A counter shared by the server loop and the tasks it starts.
private final class RunningCount: Sendable {
    let value = Atomic<Int>(0)
}
