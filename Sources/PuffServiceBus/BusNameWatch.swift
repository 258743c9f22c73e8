// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus

/// What both of puffd's connections (the Secret Service's and the control interface's) need from
/// the bus daemon's own signals.
enum BusNameWatch {
    /// Subscribes `connection` to `NameOwnerChanged`, which tells its `ObjectServer` that a client
    /// left and `callers` when one appeared (the bound of its process's start, for pid reuse);
    /// call before requesting a well-known name so that nobody leaves unnoticed.
    static func subscribe(_ connection: BusConnection, callers: CallerDirectory) async throws {
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
        )
        // Names that appear from now on are noted as they appear; older ones appeared before this.
        callers.noteSubscribed()
    }

    /// Logs and runs `onNameLost` when `signal` is the bus saying this connection lost a name
    /// (another puffd or provider replaced it); ignores every other signal.
    static func noticeNameLost(
        _ signal: IncomingMessage, logger: Logger, onNameLost: @Sendable (String) -> Void
    ) {
        guard signal.interface == "org.freedesktop.DBus", signal.sender == "org.freedesktop.DBus",
            signal.member == "NameLost", let name = signal.arguments.first?.string
        else { return }
        logger.warning("lost bus name", metadata: ["bus.name": "\(name)"])
        onNameLost(name)
    }
}
