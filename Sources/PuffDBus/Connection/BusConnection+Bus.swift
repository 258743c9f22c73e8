// SPDX-License-Identifier: Apache-2.0

/// How a request for a well-known name ended (the `RequestName` reply codes).
public enum NameRequestResult: UInt32, Sendable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

extension BusConnection {
    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS` when set, else the standard socket
    /// (D-Bus specification, "Well-known Message Bus Instances").
    public static func systemBusAddress(environment: [String: String]) -> String {
        guard let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty else {
            return "unix:path=/var/run/dbus/system_bus_socket"
        }
        return address
    }

    private static let busName = "org.freedesktop.DBus"
    private static let busPath = ObjectPath(unchecked: "/org/freedesktop/DBus")

    /// Asks the bus for `name` without queueing (`DBUS_NAME_FLAG_DO_NOT_QUEUE`), always allowing a
    /// later `--replace` to take it over, and replacing the current owner when `replace` is set.
    public func requestName(_ name: BusName, replace: Bool) async throws -> NameRequestResult {
        // DBUS_NAME_FLAG_ALLOW_REPLACEMENT = 1, REPLACE_EXISTING = 2, DO_NOT_QUEUE = 4.
        let flags: UInt32 = 1 | 4 | (replace ? 2 : 0)
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags)])
        guard case .uint32(let code)? = reply.arguments.first, let result = NameRequestResult(rawValue: code) else {
            throw DBusError(.failed, "unexpected RequestName reply")
        }
        return result
    }

    /// Releases `name`.
    public func releaseName(_ name: BusName) async throws {
        _ = try await callBus("ReleaseName", [.string(name.rawValue)])
    }

    /// Adds a match rule so that broadcast signals reach this connection.
    public func addMatch(_ rule: String) async throws {
        _ = try await callBus("AddMatch", [.string(rule)])
    }

    /// Adds a match rule so that the signals it describes reach this connection.
    public func addMatch(_ rule: MatchRule) async throws {
        try await addMatch(rule.text)
    }

    /// The unique name of the connection that owns `name`, or nil when nobody does (`GetNameOwner`).
    public func nameOwner(of name: BusName) async throws -> String? {
        let reply: IncomingMessage
        do {
            reply = try await callBus("GetNameOwner", [.string(name.rawValue)])
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
        guard let owner = reply.arguments.first?.string else { throw DBusError(.failed, "unexpected reply") }
        return owner
    }

    /// The Unix process id of the connection named `name` (`GetConnectionUnixProcessID`).
    public func processID(of name: String) async throws -> UInt32 {
        let reply = try await callBus("GetConnectionUnixProcessID", [.string(name)])
        guard case .uint32(let pid)? = reply.arguments.first else { throw DBusError(.failed, "unexpected reply") }
        return pid
    }

    /// The Unix user id of the connection named `name` (`GetConnectionUnixUser`).
    public func userID(of name: String) async throws -> UInt32 {
        let reply = try await callBus("GetConnectionUnixUser", [.string(name)])
        guard case .uint32(let uid)? = reply.arguments.first else { throw DBusError(.failed, "unexpected reply") }
        return uid
    }

    func callBus(_ member: MemberName, _ body: [DBusValue]) async throws -> IncomingMessage {
        try await call(
            .methodCall(
                destination: Self.busName, path: Self.busPath, interface: "org.freedesktop.DBus", member: member, body)
        )
    }
}
