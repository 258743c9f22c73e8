// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffService
import ServiceLifecycle

/// Locks every collection when logind says the system is about to sleep, when a session of this
/// user locks (its screen locker starts), and when this user's last session ends.
///
/// "Ends" means removed or closing: with `KillUserProcesses=no` (Debian's default) a session
/// whose user logged out stays listed, in state `closing`, for as long as a process of it lives,
/// and a puffd the PAM module started is such a process, so logind never removes it. logind
/// sends no signal when a session turns closing, so while this user has live sessions the
/// watcher also asks every ``closingCheck`` for the user's sessions and their `State`
/// (issue 24, item 28).
///
/// It has its own connection to the system bus and talks to logind through PuffDBus; the service
/// only gets ``lock``. No system bus, or no logind on it, is no error: one log line, and the other
/// locks (the timers, `SIGUSR1`) work as before. logind appearing later, or restarting, is noticed.
struct LogindWatcher: Service, CustomStringConvertible {
    static let logind = BusName("org.freedesktop.login1")!
    static let manager: InterfaceName = "org.freedesktop.login1.Manager"
    static let session: InterfaceName = "org.freedesktop.login1.Session"
    static let managerPath = ObjectPath(unchecked: "/org/freedesktop/login1")

    /// The system bus, or a private bus standing in for it in tests.
    let address: String
    /// Whose sessions count: the daemon's own user.
    let userID: UInt32
    let lock: @Sendable (LockReason) async -> Void
    let logger: Logger
    /// How often the user's sessions are looked at while some are live (see above).
    var closingCheck: Duration = Self.defaultClosingCheck

    var description: String { "LogindWatcher" }

    /// What the watcher knows of logind.
    /// Five seconds: how long after a logout that left a closing session `login` may stay open.
    static let defaultClosingCheck: Duration = .seconds(5)

    private struct State {
        /// logind's unique name; only its signals are believed.
        var owner: String?
        /// This user's live sessions: listed, and neither closing nor announced removed.
        var sessions: Set<ObjectPath> = []
        /// Every session of this user logind lists, closing ones too.
        var listed: Set<ObjectPath> = []
        /// Sessions of this user that logind announced gone but may list a while longer (closing).
        var ended: Set<ObjectPath> = []
    }

    func run() async {
        let connection: BusConnection
        do {
            connection = try await BusConnection.connect(address: address)
        } catch {
            logger.notice(
                "No system bus: not locking on sleep, session lock or logout; timers and SIGUSR1 still lock",
                metadata: ["bus.address": "\(address)", "error": "\(error)"])
            return
        }
        await withGracefulShutdownHandler {
            await watch(connection)
        } onGracefulShutdown: {
            connection.close()
        }
    }

    /// The signals the watcher reads. Matches come before any question to logind, so nothing that
    /// happens after the answer is missed.
    static let rules: [MatchRule] = [
        .signal(sender: logind, interface: manager, member: "PrepareForSleep", path: managerPath),
        .signal(sender: logind, interface: manager, member: "SessionNew", path: managerPath),
        .signal(sender: logind, interface: manager, member: "SessionRemoved", path: managerPath),
        .signal(sender: logind, interface: session, member: "Lock"),
        .signal(
            sender: BusName("org.freedesktop.DBus")!, interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            arg0: logind.rawValue),
    ]

    private func watch(_ connection: BusConnection) async {
        var state = State()
        do {
            for rule in Self.rules { try await connection.addMatch(rule) }
            state.owner = try await connection.nameOwner(of: Self.logind)
        } catch {
            logger.notice(
                "Cannot watch logind: not locking on sleep, session lock or logout; timers and SIGUSR1 still lock",
                metadata: ["error": "\(error)"])
            connection.close()
            return
        }
        if state.owner == nil {
            logger.notice("logind is not running: not locking on sleep, session lock or logout until it starts")
        } else {
            await refreshSessions(connection, &state)
            logger.info("Watching logind", metadata: ["sessions": "\(state.sessions.count)"])
        }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let forward = Task {
            for await message in connection.messages { continuation.yield(.message(message)) }
            continuation.finish()
        }
        let interval = closingCheck
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.tick)
            }
        }
        defer {
            forward.cancel()
            ticker.cancel()
        }
        for await event in events {
            switch event {
            case .message(let message) where message.kind == .signal:
                await handle(message, connection, &state)
            case .message(let message) where message.kind == .methodCall && message.expectsReply:
                connection.send(.error(to: message, DBusError(.unknownMethod, "puffd serves nothing on this bus")))
            case .message:
                break
            case .tick:
                // Only a live session can turn closing; a new one comes with SessionNew.
                guard state.owner != nil, !state.sessions.isEmpty else { continue }
                await refreshAndLockAfterTheLast(connection, &state)
            }
        }
        logger.info("Stopped watching logind")
    }

    /// What the watcher reacts to: a message from the system bus, or the time to look again.
    private enum Event: Sendable {
        case message(IncomingMessage)
        case tick
    }

    /// Looks at the user's sessions again and locks when the last live one is gone.
    private func refreshAndLockAfterTheLast(_ connection: BusConnection, _ state: inout State) async {
        let before = state.sessions
        await refreshSessions(connection, &state)
        guard state.sessions.count < before.count else { return }
        guard state.sessions.isEmpty else {
            logger.debug("A session of this user ended", metadata: ["sessions": "\(state.sessions.count)"])
            return
        }
        await lock(.sessionsEnded)
    }

    private func handle(_ signal: IncomingMessage, _ connection: BusConnection, _ state: inout State) async {
        if signal.sender == "org.freedesktop.DBus" {
            // The bus also tells this connection its own name (NameAcquired): nothing to do.
            guard signal.member == "NameOwnerChanged", signal.arguments.first?.string == Self.logind.rawValue,
                let owner = signal.arguments.last?.string
            else { return }
            state.owner = owner.isEmpty ? nil : owner
            logger.notice(owner.isEmpty ? "logind left the system bus" : "logind is running")
            if !owner.isEmpty { await refreshSessions(connection, &state) }
            return
        }
        // A signal sent straight to this connection skips the match rules: believe logind only.
        guard let owner = state.owner, signal.sender == owner else {
            logger.debug(
                "Ignored a signal not sent by logind",
                metadata: ["member": "\(signal.member ?? "")", "sender": "\(signal.sender ?? "")"])
            return
        }
        switch (signal.interface, signal.member) {
        case (Self.manager.rawValue?, "PrepareForSleep"?):
            guard signal.arguments.first?.bool == true else {
                logger.debug("The system woke up")
                return
            }
            await lock(.systemSleep)
        case (Self.session.rawValue?, "Lock"?):
            guard let path = signal.path, state.sessions.contains(path) else {
                logger.debug(
                    "Ignored the Lock of another user's session",
                    metadata: ["session": "\(signal.path?.rawValue ?? "")"])
                return
            }
            await lock(.sessionLocked)
        case (Self.manager.rawValue?, "SessionNew"?):
            await refreshSessions(connection, &state)
        case (Self.manager.rawValue?, "SessionRemoved"?):
            guard let path = signal.arguments.last?.objectPath, state.listed.contains(path) else {
                logger.debug("Another user's session ended")
                return
            }
            state.ended.insert(path)
            await refreshAndLockAfterTheLast(connection, &state)
        default:
            break
        }
    }

    /// Asks logind for this user's sessions (`ListSessions`, `a(susso)`); on failure keeps what it knew.
    private func refreshSessions(_ connection: BusConnection, _ state: inout State) async {
        let reply: IncomingMessage
        do {
            reply = try await connection.call(
                .methodCall(
                    destination: Self.logind.rawValue, path: Self.managerPath, interface: Self.manager,
                    member: "ListSessions"))
        } catch {
            logger.warning("Listing logind's sessions failed", metadata: ["error": "\(error)"])
            return
        }
        var listed: Set<ObjectPath> = []
        for session in reply.arguments.first?.elements ?? [] {
            guard let fields = session.fields, fields.count == 5, let uid = fields[1].uint32,
                let path = fields[4].objectPath
            else { continue }
            if uid == userID { listed.insert(path) }
        }
        // A session logind said ended may be listed while it closes; once it is not, forget it.
        state.ended.formIntersection(listed)
        state.listed = listed
        var live: Set<ObjectPath> = []
        for path in listed.subtracting(state.ended) where await sessionState(path, connection) != "closing" {
            live.insert(path)
        }
        state.sessions = live
    }

    /// A session's `State` (`online`, `active`, `closing`); nil when logind does not answer (the
    /// session is gone, or an old logind): such a session counts as live, as before.
    private func sessionState(_ path: ObjectPath, _ connection: BusConnection) async -> String? {
        let reply = try? await connection.call(
            .methodCall(
                destination: Self.logind.rawValue, path: path, interface: "org.freedesktop.DBus.Properties",
                member: "Get", [.string(Self.session.rawValue), .string("State")]))
        return reply?.arguments.first?.variantContents?.string
    }
}
