// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus
import PuffService
import ServiceLifecycle

/// Locks every collection when logind says the system is about to sleep, when a session of this
/// user locks (its screen locker starts), and when this user's last session ends.
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

    var description: String { "LogindWatcher" }

    /// What the watcher knows of logind.
    private struct State {
        /// logind's unique name; only its signals are believed.
        var owner: String?
        /// This user's sessions.
        var sessions: Set<ObjectPath> = []
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
        for await message in connection.messages {
            switch message.kind {
            case .signal:
                await handle(message, connection, &state)
            case .methodCall where message.expectsReply:
                connection.send(.error(to: message, DBusError(.unknownMethod, "puffd serves nothing on this bus")))
            default:
                break
            }
        }
        logger.info("Stopped watching logind")
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
            guard let path = signal.arguments.last?.objectPath, state.sessions.contains(path) else {
                logger.debug("Another user's session ended")
                return
            }
            state.ended.insert(path)
            await refreshSessions(connection, &state)
            guard state.sessions.isEmpty else {
                logger.debug("A session of this user ended", metadata: ["sessions": "\(state.sessions.count)"])
                return
            }
            await lock(.sessionsEnded)
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
        state.sessions = listed.subtracting(state.ended)
    }
}
