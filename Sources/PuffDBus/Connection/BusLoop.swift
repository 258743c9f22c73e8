// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc
import Synchronization

/// The one thread that owns a libdbus connection: it polls the connection's watches and an
/// self-pipe, fires its timeouts, decodes what arrives and sends what other threads queue.
///
/// Nothing else ever calls libdbus with this connection, so the rest of Puff needs no locks
/// around it; other threads talk to the loop only through ``enqueue(_:)``. This is swift-nio's
/// `SelectableEventLoop` shape (poll + a wake-up descriptor), driven by libdbus's watch and timeout
/// callbacks instead of a selector of our own.
final class BusLoop: @unchecked Sendable {
    // @unchecked: every stored property below except `jobs` and `wakeFD` is touched only on the
    // loop thread; `jobs` is behind a Mutex and writing to a pipe is thread-safe.

    /// Work for the loop thread.
    enum Job: Sendable {
        case send(OutgoingMessage)
        /// A send whose `released` runs once no copy of the message is left (``BusConnection/send(_:released:)``).
        case sendReleasing(OutgoingMessage, released: @Sendable () -> Void)
        case call(OutgoingMessage, id: UInt64)
        case expire(id: UInt64)
        case stop
    }

    /// What the loop reports back.
    struct Delegate: Sendable {
        var received: @Sendable (IncomingMessage) -> Void
        var replied: @Sendable (_ id: UInt64, _ result: Result<IncomingMessage, DBusError>) -> Void
        var closed: @Sendable () -> Void
    }

    private let connection: OpaquePointer
    /// The self-pipe: other threads write a byte to `wakeFD`, the loop polls `wakeRead`.
    private let wakeFD: Int32
    private let wakeRead: Int32
    var connectionPointer: OpaquePointer { connection }
    var wakeDescriptor: Int32 { wakeRead }
    /// Jobs queued for the loop, whether a wake-up was written since it last took them, and whether
    /// the loop has ended (jobs queued then never run).
    private let jobs = Mutex<(queued: [Job], woken: Bool, ended: Bool)>(([], false, false))
    /// How incoming messages are decoded; set by the server before it serves.
    let decodePolicy = Mutex<DecodePolicy>(.standard)
    private var delegate: Delegate?
    /// libdbus's watches, in the order it added them (loop thread only).
    private(set) var watchList: [OpaquePointer] = []
    /// Enabled timeouts and when each fires next (loop thread only).
    private(set) var timeoutDeadlines: [OpaquePointer: ContinuousClock.Instant] = [:]
    /// Outgoing calls awaiting a reply: our serial → the caller's id.
    private var pendingBySerial: [UInt32: UInt64] = [:]
    private var running = true
    /// `released` callbacks of messages libdbus has freed, run once the loop holds no copy either
    /// (loop thread only).
    var releasedMessages: [@Sendable () -> Void] = []
    /// The loop thread's `pthread_t` once ``run(delegate:)`` started (0 before).
    private let loopThread = Atomic<UInt>(0)

    /// Opens and registers a private connection on the calling thread, which then becomes the loop
    /// thread when it calls ``run(delegate:)``.
    init(address: String?) throws(DBusError) {
        let connection = try Self.open(address: address)
        // A self-pipe rather than an eventfd: Glibc's module map does not carry sys/eventfd.h.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusError(.failed, "pipe2 failed: errno \(errno)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.connection = connection
        wakeRead = ends[0]
        wakeFD = ends[1]
        // A lost bus must end the loop, not the process (libdbus's default calls _exit).
        dbus_connection_set_exit_on_disconnect(connection, 0)
        installCallbacks()
    }

    deinit {
        close(wakeFD)
        close(wakeRead)
    }

    /// The unique name the bus gave this connection.
    var uniqueName: String {
        dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
    }

    private static func open(address: String?) throws(DBusError) -> OpaquePointer {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let connection: OpaquePointer?
        if let address {
            connection = dbus_connection_open_private(address, &error)
            if let connection, dbus_bus_register(connection, &error) == 0 {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                throw Self.describe(error, fallback: "could not register on the bus")
            }
        } else {
            connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        }
        guard let connection else { throw Self.describe(error, fallback: "could not connect to the bus") }
        return connection
    }

    static func describe(_ error: CDBus.DBusError, fallback: String) -> DBusError {
        let name = error.name.flatMap { ErrorName(String(cString: $0)) } ?? .failed
        let message = error.message.map { String(cString: $0) } ?? fallback
        return DBusError(name, message)
    }

    /// Queues `job` and wakes the loop thread. Safe from any thread.
    ///
    /// Only one wake-up is written until the loop takes the queue: it takes the whole queue at once,
    /// so later jobs ride on that wake-up. With `wake` false the job waits for the next one
    /// (``wakeIfQueued()``): a call's signals then leave with its reply, for one wake-up.
    func enqueue(_ job: Job, wake: Bool = true) {
        let (writes, ended) = jobs.withLock { jobs -> (Bool, Bool) in
            if jobs.ended { return (false, true) }
            jobs.queued.append(job)
            guard wake, !jobs.woken else { return (false, false) }
            jobs.woken = true
            return (true, false)
        }
        if writes { self.wake() }
        // The loop has ended: no copy of the message was made.
        if ended, case .sendReleasing(_, let released) = job { released() }
    }

    /// Wakes the loop if jobs wait without a wake-up.
    func wakeIfQueued() {
        let writes = jobs.withLock { jobs -> Bool in
            guard !jobs.queued.isEmpty, !jobs.woken else { return false }
            jobs.woken = true
            return true
        }
        if writes { wake() }
    }

    /// How many wake-ups were written (tests count them).
    let wakeUps = Atomic<Int>(0)

    private func wake() {
        wakeUps.add(1, ordering: .relaxed)
        var one: UInt8 = 1
        _ = write(wakeFD, &one, 1)
    }

    /// Runs until the connection drops or ``Job/stop`` arrives; call it on the dedicated thread.
    func run(delegate: Delegate) {
        self.delegate = delegate
        loopThread.store(pthread_self(), ordering: .releasing)
        while running {
            runJobs()
            runReleased()  // after runJobs, whose batch held the messages' Swift form
            drainIncoming()
            guard running, dbus_connection_get_is_connected(connection) != 0 else { break }
            pollOnce()
        }
        // Flush whatever replies are still queued so a stopping daemon answers what it accepted.
        dbus_connection_flush(connection)
        dbus_connection_close(connection)
        for (_, id) in pendingBySerial { delegate.replied(id, .failure(DBusError(.disconnected, "connection closed"))) }
        pendingBySerial.removeAll()
        delegate.closed()
        dbus_connection_unref(connection)
        let left = jobs.withLock { jobs -> [Job] in
            jobs.ended = true
            defer { jobs.queued.removeAll() }
            return jobs.queued
        }
        for case .sendReleasing(_, let released) in left { releasedMessages.append(released) }
        runReleased()
    }

    private func runJobs() {
        let batch = jobs.withLock { jobs -> [Job] in
            defer {
                jobs.queued.removeAll(keepingCapacity: true)
                jobs.woken = false
            }
            return jobs.queued
        }
        for job in batch {
            switch job {
            case .send(let message):
                _ = send(message)
            case .sendReleasing(let message, let released):
                _ = send(message, released: released)
            case .call(let message, let id):
                // A call that never left must fail now, not wait out its timeout.
                switch send(message) {
                case .success(let serial): pendingBySerial[serial] = id
                case .failure(let error): delegate?.replied(id, .failure(error))
                }
            case .expire(let id):
                if let entry = pendingBySerial.first(where: { $0.value == id }) {
                    pendingBySerial[entry.key] = nil
                    delegate?.replied(id, .failure(DBusError(.noReply, "no reply within the timeout")))
                }
            case .stop:
                running = false
            }
        }
    }

    private func send(
        _ outgoing: OutgoingMessage, released: (@Sendable () -> Void)? = nil
    ) -> Result<UInt32, DBusError> {
        let message: OpaquePointer
        do {
            message = try outgoing.build()
        } catch {
            if let released { releasedMessages.append(released) }
            return .failure(error)
        }
        if let released { noteRelease(of: message, released) }
        defer { dbus_message_unref(message) }
        // libdbus silently refuses descriptors on a transport that cannot carry them (TCP, or a
        // Unix socket where the peer did not negotiate them); say why instead.
        if dbus_message_contains_unix_fds(message) != 0,
            dbus_connection_can_send_type(connection, TypeCode.unixFD) == 0
        {
            return .failure(DBusError(.notSupported, "this connection cannot pass Unix file descriptors"))
        }
        var serial: UInt32 = 0
        guard dbus_connection_send(connection, message, &serial) != 0 else {
            return .failure(DBusError(.noMemory, "could not queue the message"))
        }
        return .success(serial)
    }

    private func drainIncoming() {
        let policy = decodePolicy.withLock { $0 }
        while let message = dbus_connection_pop_message(connection) {
            let incoming = IncomingMessage(message, policy: policy)
            dbus_message_unref(message)
            guard incoming.kind != .unknown else { continue }  // D-Bus says: ignore unknown types
            if incoming.kind == .methodReturn || incoming.kind == .error,
                let id = pendingBySerial.removeValue(forKey: incoming.replySerial)
            {
                if incoming.kind == .error {
                    let name = incoming.errorName.flatMap(ErrorName.init) ?? .failed
                    let text: String = if case .string(let s)? = incoming.arguments.first { s } else { "" }
                    delegate?.replied(id, .failure(DBusError(name, text)))
                } else {
                    delegate?.replied(id, .success(incoming))
                }
                continue
            }
            delegate?.received(incoming)
        }
    }

    // MARK: libdbus callbacks (loop thread)

    func addWatch(_ watch: OpaquePointer?) -> dbus_bool_t {
        if let watch { watchList.append(watch) }
        return 1
    }

    func removeWatch(_ watch: OpaquePointer?) {
        watchList.removeAll { $0 == watch }
    }

    func addTimeout(_ timeout: OpaquePointer?) -> dbus_bool_t {
        guard let timeout else { return 1 }
        if dbus_timeout_get_enabled(timeout) != 0 {
            resetDeadline(timeout)
        } else {
            timeoutDeadlines[timeout] = nil
        }
        return 1
    }

    func removeTimeout(_ timeout: OpaquePointer?) {
        if let timeout { timeoutDeadlines[timeout] = nil }
    }

    func resetDeadline(_ timeout: OpaquePointer) {
        let interval = Int64(dbus_timeout_get_interval(timeout))
        timeoutDeadlines[timeout] = ContinuousClock.now.advanced(by: .milliseconds(interval))
    }

    /// libdbus asks for this after queueing a message. On the loop thread (where every send runs)
    /// the loop polls again anyway, reading the watches' new flags, so a byte in the pipe would only
    /// cost a `write`, a `read` and a spare round of `poll` per message sent.
    func wakeFromLibdbus() {
        if loopThread.load(ordering: .acquiring) == pthread_self() { return }
        wake()
    }
}
