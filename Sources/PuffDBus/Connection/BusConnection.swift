// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc
import PuffConcurrency
import Synchronization

/// A private connection to a message bus, served by its own ``BusLoop`` thread.
///
/// Every method is safe from any task: sends are queued to the loop thread, replies to outgoing
/// calls come back through continuations, and everything else that arrives is delivered in order
/// on ``messages``.
public final class BusConnection: Sendable {
    private let loop: BusLoop
    /// The unique name the bus assigned, such as `:1.42`.
    public let uniqueName: String
    /// Method calls and signals addressed to this connection, in arrival order. The stream ends
    /// when the connection closes.
    public let messages: AsyncStream<IncomingMessage>
    private let calls: PendingCalls
    private let callHandler: CallHandlerSlot
    private let signalObserver: SignalObserverSlot

    private init(
        loop: BusLoop, messages: AsyncStream<IncomingMessage>, calls: PendingCalls, callHandler: CallHandlerSlot,
        signalObserver: SignalObserverSlot
    ) {
        self.loop = loop
        uniqueName = loop.uniqueName
        self.messages = messages
        self.calls = calls
        self.callHandler = callHandler
        self.signalObserver = signalObserver
    }

    /// Connects to the bus at `address`, or to the session bus when `address` is `nil`, and
    /// starts the loop thread. Connecting and the `Hello` exchange happen on that thread.
    public static func connect(address: String? = nil) async throws -> BusConnection {
        let (stream, sink) = AsyncStream<IncomingMessage>.makeStream(bufferingPolicy: .unbounded)
        let calls = PendingCalls()
        let callHandler = CallHandlerSlot()
        let signalObserver = SignalObserverSlot()
        return try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<BusConnection, any Error>) in
            DedicatedThread.start("the bus thread") {
                let loop: BusLoop
                do {
                    loop = try BusLoop(address: address)
                } catch {
                    sink.finish()
                    continuation.resume(throwing: error)
                    return
                }
                continuation.resume(
                    returning: BusConnection(
                        loop: loop, messages: stream, calls: calls, callHandler: callHandler,
                        signalObserver: signalObserver))
                loop.run(
                    delegate: .init(
                        received: { message in
                            if message.kind == .signal { signalObserver.notify(message) }
                            if message.kind != .methodCall || !callHandler.take(message) { sink.yield(message) }
                        },
                        replied: { id, result in calls.complete(id, result) },
                        closed: {
                            calls.failAll()
                            sink.finish()
                        }
                    )
                )
            }
        }
    }

    /// Sets how the bus thread decodes what arrives from now on (limits, secret fields, the
    /// method signatures worth decoding).
    public func setDecodePolicy(_ policy: DecodePolicy) {
        loop.decodePolicy.withLock { $0 = policy }
    }

    /// Hands every method call to `handler` on the bus thread as it arrives, instead of to
    /// ``messages``; `nil` goes back to the stream. The handler must never block: it runs on the
    /// thread that serves the connection (a server uses it to answer `Peer` calls and queue the
    /// rest without a thread hop in between).
    ///
    /// Calls held by ``holdMethodCalls()`` are handed to `handler` first, in arrival order, under
    /// the lock the bus thread takes for each call, so no later call can overtake them.
    public func setMethodCallHandler(_ handler: (@Sendable (IncomingMessage) -> Void)?) {
        callHandler.set(handler)
    }

    /// Shows every signal to `observer` on the bus thread as it arrives, before it joins
    /// ``messages``: what must be noted before any later call is handled (when a client appeared
    /// on the bus, ``CallerDirectory``) is noted there. The observer must never block; a second
    /// call replaces the first observer.
    public func observeSignals(_ observer: @escaping @Sendable (IncomingMessage) -> Void) {
        signalObserver.set(observer)
    }

    /// Keeps method calls that arrive before ``setMethodCallHandler(_:)`` installs a handler,
    /// instead of putting them on ``messages``: a server that takes its name before it serves
    /// (puffd, while its vault loads) calls this first, so a client's calls reach its lanes in the
    /// order they were sent.
    public func holdMethodCalls() {
        callHandler.hold()
    }

    /// Queues `message` for sending; never blocks.
    public func send(_ message: OutgoingMessage) {
        loop.enqueue(.send(message))
    }

    /// Queues `message` like ``send(_:)`` and calls `released`, on the bus thread, once no copy of
    /// it is left: libdbus has written all of it to the bus (or dropped it with the connection) and
    /// freed it, and the bus thread has dropped the form it was built from. For a large message
    /// whose freed memory the caller then gives back to the system (``ListSignalCoalescer`` at
    /// 100,000 items); `released` must not block.
    public func send(_ message: OutgoingMessage, released: @escaping @Sendable () -> Void) {
        loop.enqueue(.sendReleasing(message, released: released))
    }

    /// Queues `message` like ``send(_:)``, but without waking the bus thread while the current task
    /// serves a call (``SendHold/current``): it then leaves with that call's reply. For signals a
    /// call causes, which must leave before its reply anyway.
    public func sendSoon(_ message: OutgoingMessage) {
        if let hold = SendHold.current, hold.hold({ loop.enqueue(.send(message), wake: false) }) { return }
        loop.enqueue(.send(message))
    }

    /// Wakes the bus thread if messages wait without a wake-up (a call that held some and sends no
    /// reply).
    public func wakeIfQueued() {
        loop.wakeIfQueued()
    }

    /// How many times other threads woke the bus thread to send (tests count them).
    package var wakeUps: Int { loop.wakeUps.load(ordering: .relaxed) }

    /// Sends a method call and waits for its reply without blocking any thread.
    ///
    /// - Throws: ``DBusError`` carrying the peer's error, `NoReply` after `timeout`,
    ///   `Disconnected` if the connection closes first, or `NotSupported` at once when the body
    ///   holds a ``DBusValue/unixFD(_:)`` and the connection cannot pass descriptors.
    public func call(
        _ message: OutgoingMessage, timeout: Duration = CallTimeout.standard
    ) async throws -> IncomingMessage {
        let id = calls.nextID()
        let loop = self.loop
        let timer = Task {
            try await Task.sleep(for: timeout)
            loop.enqueue(.expire(id: id))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            calls.register(id, continuation)
            loop.enqueue(.call(message, id: id))
        }
    }

    /// Stops the loop thread after it has flushed what is queued; ``messages`` then ends.
    public func close() {
        loop.enqueue(.stop)
    }
}

/// Continuations of outgoing calls, keyed by an id the loop echoes back.
private final class PendingCalls: Sendable {
    private let state = Mutex<
        (next: UInt64, waiting: [UInt64: CheckedContinuation<IncomingMessage, any Error>], closed: Bool)
    >(
        (1, [:], false)
    )

    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    func register(_ id: UInt64, _ continuation: CheckedContinuation<IncomingMessage, any Error>) {
        let closed = state.withLock { state -> Bool in
            if !state.closed { state.waiting[id] = continuation }
            return state.closed
        }
        if closed { continuation.resume(throwing: DBusError(.disconnected, "connection closed")) }
    }

    func complete(_ id: UInt64, _ result: Result<IncomingMessage, DBusError>) {
        let continuation = state.withLock { $0.waiting.removeValue(forKey: id) }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }

    func failAll() {
        let all = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in all { continuation.resume(throwing: DBusError(.disconnected, "connection closed")) }
    }
}

/// The method-call handler a server installed, read on the bus thread for every call, or the
/// calls held until one is.
///
/// The closure sits in a class box: a function value kept directly in a `Mutex` is re-abstracted
/// on every `inout` access, so each read wrapped it in two more thunks, and after some 10,000
/// calls the nested thunks overflowed the bus thread's stack.
private final class CallHandlerSlot: Sendable {
    private final class Box: Sendable {
        let handler: @Sendable (IncomingMessage) -> Void
        init(_ handler: @escaping @Sendable (IncomingMessage) -> Void) { self.handler = handler }
    }

    private enum Mode {
        /// Calls go to the message stream.
        case stream
        /// Calls wait here for a handler.
        case holding([IncomingMessage])
        case handler(Box)
    }

    private let mode = Mutex<Mode>(.stream)

    /// Hands `message` to the handler or keeps it; false: it belongs on the stream.
    func take(_ message: IncomingMessage) -> Bool {
        let (taken, box) = mode.withLock { mode -> (Bool, Box?) in
            switch mode {
            case .stream: return (false, nil)
            case .holding(var held):
                mode = .stream  // so the array is not copied on append
                held.append(message)
                mode = .holding(held)
                return (true, nil)
            case .handler(let box): return (true, box)
            }
        }
        box?.handler(message)
        return taken
    }

    func hold() {
        mode.withLock { mode in
            if case .stream = mode { mode = .holding([]) }
        }
    }

    func set(_ new: (@Sendable (IncomingMessage) -> Void)?) {
        mode.withLock { mode in
            guard let new else {
                mode = .stream
                return
            }
            // Under the lock: the bus thread waits to hand on the next call until these are in.
            if case .holding(let held) = mode { for message in held { new(message) } }
            mode = .handler(Box(new))
        }
    }
}

/// The observer ``BusConnection/observeSignals(_:)`` installs, boxed for the reason
/// ``CallHandlerSlot`` gives.
private final class SignalObserverSlot: Sendable {
    private final class Box: Sendable {
        let observer: @Sendable (IncomingMessage) -> Void
        init(_ observer: @escaping @Sendable (IncomingMessage) -> Void) { self.observer = observer }
    }

    private let box = Mutex<Box?>(nil)

    func notify(_ message: IncomingMessage) {
        box.withLock { $0 }?.observer(message)
    }

    func set(_ observer: @escaping @Sendable (IncomingMessage) -> Void) {
        box.withLock { $0 = Box(observer) }
    }
}
