// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffTesting
import Testing

/// The Secret Service calls an end-to-end test checks a daemon with, over a raw connection to its bus.
struct SecretServiceClient {
    private static let root = ObjectPath("/org/freedesktop/secrets")!
    private let connection: BusConnection

    init(_ daemon: TestDaemon) async throws {
        connection = try await BusConnection.connect(address: daemon.bus.address)
    }

    func close() { connection.close() }

    private func call(
        _ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue], on path: ObjectPath = Self.root
    ) async throws -> [DBusValue] {
        try await connection.call(
            .methodCall(destination: "org.freedesktop.secrets", path: path, interface: interface, member: member, body)
        ).arguments
    }

    /// An object path property of the object at `path`.
    private func paths(_ property: String, of interface: String, at path: ObjectPath) async throws -> [String] {
        let reply = try await call(
            "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(property)], on: path)
        return try #require(reply.first?.variantContents?.objectPaths).map(\.rawValue)
    }

    /// The service's `Collections` property.
    func collections() async throws -> [String] {
        try await paths("Collections", of: "org.freedesktop.Secret.Service", at: Self.root)
    }

    /// A collection's `Items` property.
    func items(of collection: String) async throws -> [String] {
        try await paths("Items", of: "org.freedesktop.Secret.Collection", at: try #require(ObjectPath(collection)))
    }

    /// `ReadAlias`: the collection's path, or `/`.
    func readAlias(_ name: String) async throws -> String {
        try #require(try await call("org.freedesktop.Secret.Service", "ReadAlias", [.string(name)]).first?.objectPath)
            .rawValue
    }

    /// Subscribes to the `PropertiesChanged` signals of `collection`, for ``nextItems(of:)``.
    func watchItems(of collection: String) async throws {
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.secrets',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path='\(collection)'")
    }

    /// The `Items` the next `PropertiesChanged` of `collection` announces; nil when none comes
    /// within ``HangGuard/step`` (the connection is closed then, so a test fails instead of hanging).
    func nextItems(of collection: String) async -> [String]? {
        let connection = self.connection
        let deadline = Task {
            try await Task.sleep(for: HangGuard.step)
            connection.close()
        }
        defer { deadline.cancel() }
        for await message in connection.messages
        where message.member == "PropertiesChanged" && message.path?.rawValue == collection {
            guard let items = message.arguments.dropFirst().first?.variantDictionary?["Items"] else { continue }
            return items.objectPaths?.map(\.rawValue)
        }
        return nil
    }

    /// `SetAlias` to a collection path.
    func setAlias(_ name: String, to path: String) async throws {
        _ = try await call(
            "org.freedesktop.Secret.Service", "SetAlias", [.string(name), .objectPath(try #require(ObjectPath(path)))])
    }

    /// `SearchItems`: the unlocked and the locked item paths.
    func searchItems(_ attributes: [String: String]) async throws -> (unlocked: [String], locked: [String]) {
        let reply = try await call("org.freedesktop.Secret.Service", "SearchItems", [.stringDictionary(attributes)])
        let unlocked = try #require(reply.first?.objectPaths).map(\.rawValue)
        let locked = try #require(reply.last?.objectPaths).map(\.rawValue)
        return (unlocked, locked)
    }
}
