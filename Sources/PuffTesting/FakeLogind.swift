// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import Synchronization

/// A stand-in for systemd-logind on a private bus that stands in for the system bus: it owns
/// `org.freedesktop.login1`, answers `ListSessions` with the sessions a test gives it and each
/// session's `State` property, and emits the signals `puffd` locks on. Like logind, it lists a
/// closing session (its user logged out, a process of it lives on) until it is removed, and
/// signals nothing when a session turns closing.
public final class FakeLogind: Sendable {
    /// A login session as `ListSessions` reports it.
    public struct Session: Sendable {
        public var id: String
        public var userID: UInt32
        public var user: String
        /// `online`, `active` or `closing`, as the `State` property says.
        public var state: String

        /// A session of `userID` named `id`.
        public init(id: String, userID: UInt32, user: String = "someone", state: String = "active") {
            self.id = id
            self.userID = userID
            self.user = user
            self.state = state
        }

        /// Its object path, escaped as logind does (`2` → `/org/freedesktop/login1/session/_32`).
        public var path: ObjectPath { FakeLogind.path(ofSession: id) }
    }

    private struct State {
        var sessions: [Session]
        var listCalls = 0
        /// Who called `ListSessions` last: the watcher's unique name.
        var lastCaller: String?
    }

    static let managerPath = ObjectPath("/org/freedesktop/login1")!
    static let manager: InterfaceName = "org.freedesktop.login1.Manager"

    private let connection: BusConnection
    private let state: Mutex<State>

    private init(connection: BusConnection, sessions: [Session]) {
        self.connection = connection
        state = Mutex(State(sessions: sessions))
    }

    /// Connects to `bus`, takes `org.freedesktop.login1` and starts answering calls.
    public static func start(on bus: TestBus, sessions: [Session]) async throws -> FakeLogind {
        let connection = try await BusConnection.connect(address: bus.address)
        let fake = FakeLogind(connection: connection, sessions: sessions)
        guard try await connection.requestName(BusName("org.freedesktop.login1")!, replace: false) == .primaryOwner
        else { throw DBusError(.failed, "org.freedesktop.login1 is taken") }
        Task { await fake.serve() }
        return fake
    }

    /// Leaves the bus, as logind stopping would; the bus killing it ends it too.
    public func stop() {
        connection.close()
    }

    private func serve() async {
        for await call in connection.messages where call.kind == .methodCall {
            if call.interface == "org.freedesktop.DBus.Properties", call.member == "Get" {
                answerGet(call)
                continue
            }
            guard call.interface == Self.manager.rawValue, call.member == "ListSessions" else {
                connection.send(
                    .error(to: call, DBusError(.unknownMethod, "the fake logind answers ListSessions only")))
                continue
            }
            let sessions = state.withLock { state in
                state.listCalls += 1
                state.lastCaller = call.sender
                return state.sessions
            }
            let listed = sessions.map { session in
                DBusValue.structure([
                    .string(session.id), .uint32(session.userID), .string(session.user), .string("seat0"),
                    .objectPath(session.path),
                ])
            }
            connection.send(.reply(to: call, [.array(element: "(susso)", listed)]))
        }
    }

    /// `Properties.Get(org.freedesktop.login1.Session, State)` on a session's object.
    private func answerGet(_ call: IncomingMessage) {
        let names = call.arguments.compactMap(\.string)
        let session = state.withLock { state in state.sessions.first { $0.path == call.path } }
        guard names == ["org.freedesktop.login1.Session", "State"], let session else {
            connection.send(.error(to: call, DBusError(.unknownObject, "no such session or property")))
            return
        }
        connection.send(.reply(to: call, [.variant(.string(session.state))]))
    }

    /// Sets a session's `State` and signals nothing, as logind does when a user logs out of a
    /// session a process outlives (`closing`).
    public func setState(of session: Session, to value: String) {
        state.withLock { state in
            for index in state.sessions.indices where state.sessions[index].id == session.id {
                state.sessions[index].state = value
            }
        }
    }

    /// How many times `ListSessions` was called.
    public var listCalls: Int { state.withLock { $0.listCalls } }

    /// The unique name of the last caller of `ListSessions`.
    public var lastCaller: String? { state.withLock { $0.lastCaller } }

    /// Waits (in real time, polling) until `ListSessions` was called `count` times: the watcher
    /// calls it after adding its match rules, so from then on it hears every signal.
    public func waitForListCalls(_ count: Int, limit: Duration = HangGuard.step) async -> Bool {
        await poll(limit: limit) { self.listCalls >= count }
    }

    /// Emits `Manager.PrepareForSleep(start)`.
    public func prepareForSleep(_ start: Bool) {
        connection.send(
            .signal(path: Self.managerPath, interface: Self.manager, member: "PrepareForSleep", [.boolean(start)]))
    }

    /// Emits `Session.Lock` on the session's object, as `loginctl lock-session` makes logind do.
    public func lock(_ session: Session) {
        connection.send(.signal(path: session.path, interface: "org.freedesktop.login1.Session", member: "Lock"))
    }

    /// Adds a session and emits `Manager.SessionNew`.
    public func add(_ session: Session) {
        state.withLock { $0.sessions.append(session) }
        connection.send(
            .signal(
                path: Self.managerPath, interface: Self.manager, member: "SessionNew",
                [.string(session.id), .objectPath(session.path)]))
    }

    /// Removes a session and emits `Manager.SessionRemoved`.
    public func remove(_ session: Session) {
        state.withLock { $0.sessions.removeAll { $0.id == session.id } }
        connection.send(
            .signal(
                path: Self.managerPath, interface: Self.manager, member: "SessionRemoved",
                [.string(session.id), .objectPath(session.path)]))
    }

    /// logind's object path of session `id`: `bus_label_escape`, which writes every byte that is
    /// not an ASCII letter or digit, and a leading digit, as `_` and two hex digits.
    static func path(ofSession id: String) -> ObjectPath {
        var label = ""
        for (index, byte) in id.utf8.enumerated() {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            let isDigit = byte >= 0x30 && byte <= 0x39
            if isLetter || (isDigit && index > 0) {
                label.append(Character(Unicode.Scalar(byte)))
            } else {
                label += "_" + String(byte, radix: 16)
            }
        }
        return ObjectPath("/org/freedesktop/login1/session/\(label)")!
    }
}
