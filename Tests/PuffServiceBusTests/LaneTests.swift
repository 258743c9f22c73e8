// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffServiceBus
import PuffStore
import PuffTesting
import Testing

/// The Secret Service served in process on a real `dbus-daemon`, over a memory vault whose commits
/// the test can hold: one client's slow write must not stall another client.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LaneTests {
    static let name = "org.freedesktop.secrets.lanes"
    static let root = ObjectPath("/org/freedesktop/secrets")!
    static let login = ObjectPath("/org/freedesktop/secrets/aliases/default")!

    /// A served service plus two client connections.
    struct Served {
        let bus: TestBus
        let server: BusConnection
        let storage: FaultyRecordStore
        let serving: Task<Void, Never>

        init() async throws {
            bus = try TestBus()
            server = try await BusConnection.connect(address: bus.address)
            storage = FaultyRecordStore()
            let logger = Logger(label: "lanes", factory: { _ in SwiftLogNoOpLogHandler() })
            let publisher = SignalPublisher(connection: server)
            let service = try await SecretService(
                store: storage, mode: .ephemeral, prompter: DismissingPrompter(logger: logger),
                promptTimeout: .seconds(30),
                now: { 1 }, logger: logger, events: publisher.sink)
            let bus = SecretServiceBus(connection: server, service: service, publisher: publisher, logger: logger)
            try await bus.subscribe()
            _ = try await server.requestName(BusName(LaneTests.name)!, replace: false)
            serving = Task { await bus.run() }
        }

        func client() async throws -> BusConnection {
            try await BusConnection.connect(address: bus.address)
        }
    }

    static func call(
        _ client: BusConnection, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ body: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await client.call(
            .methodCall(destination: name, path: path, interface: interface, member: member, body)
        ).arguments
    }

    static func plainSession(_ client: BusConnection) async throws -> ObjectPath {
        let reply = try await call(
            client, root, "org.freedesktop.Secret.Service", "OpenSession", [.string("plain"), .variant(.string(""))])
        return try #require(reply.last?.objectPath)
    }

    static func createItem(_ client: BusConnection, session: ObjectPath, secret: String) async throws -> ObjectPath {
        let properties = DBusValue.dictionary(
            key: "s", value: "v",
            [.init(.string("org.freedesktop.Secret.Item.Attributes"), .variant(.stringDictionary(["s": secret])))])
        let value = DBusValue.structure([
            .objectPath(session), .bytes([]), .bytes(Array(secret.utf8)), .string("text/plain"),
        ])
        let reply = try await call(
            client, login, "org.freedesktop.Secret.Collection", "CreateItem", [properties, value, .boolean(false)])
        return try #require(reply.first?.objectPath)
    }

    @Test func aClientsHeldWriteDoesNotStallAnotherClientsReadOrPing() async throws {
        let served = try await Served()
        defer {
            served.serving.cancel()
            served.server.close()
        }
        let writer = try await served.client()
        let reader = try await served.client()
        defer {
            writer.close()
            reader.close()
        }
        let writerSession = try await Self.plainSession(writer)
        let earlier = try await Self.createItem(writer, session: writerSession, secret: "earlier")

        let commitsBefore = await served.storage.appendCount
        await served.storage.holdNextWrite()
        let held = Task { try await Self.createItem(writer, session: writerSession, secret: "held") }
        await served.storage.waitUntilHolding()

        // The writer's call is parked inside its commit; the reader must still be served.
        let readerSession = try await Self.plainSession(reader)
        let secret = try await Self.call(
            reader, earlier, "org.freedesktop.Secret.Item", "GetSecret", [.objectPath(readerSession)])
        #expect(secret.first?.fields?[2].bytes == Array("earlier".utf8))
        _ = try await Self.call(reader, Self.root, "org.freedesktop.DBus.Peer", "Ping")
        let commitsWhileHeld = await served.storage.appendCount

        await served.storage.releaseHeldWrite()
        let created = try await held.value
        #expect(created.rawValue.hasPrefix("/org/freedesktop/secrets/collection/login/"))
        #expect(commitsWhileHeld == commitsBefore, "the held commit had not finished while the reader was served")
        #expect(await served.storage.appendCount == commitsBefore + 1)
    }
}
