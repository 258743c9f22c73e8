// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffTesting
import Synchronization
import Testing

@testable import PuffDBus

/// The binding against a real `dbus-daemon`: two private connections, one serving a router.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct BusConnectionTests {
    private struct Tree: ObjectTree {
        func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
            guard path.rawValue == "/echo" else { return nil }
            return ResolvedObject(
                interfaces: [
                    Interface(
                        "org.puff.Echo",
                        methods: [
                            Method("Echo", in: [Argument("value", "v")], out: [Argument("value", "v")]) { call in
                                call.arguments
                            }
                        ]
                    )
                ], object: "echo")
        }
        func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
    }

    @Test func aServedObjectAnswersCallsFromAnotherConnection() async throws {
        let bus = try TestBus()
        let server = try await BusConnection.connect(address: bus.address)
        let client = try await BusConnection.connect(address: bus.address)
        #expect(try await server.requestName(BusName("org.puff.EchoTest")!, replace: false) == .primaryOwner)
        let serving = Task {
            await ObjectServer(
                connection: server, router: Router(tree: Tree()) { _ in DBusError(.failed, "") },
                callers: CallerDirectory(connection: server)
            ).run()
        }
        defer {
            serving.cancel()
            server.close()
            client.close()
        }

        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        let reply = try await client.call(
            .methodCall(
                destination: "org.puff.EchoTest", path: ObjectPath("/echo")!, interface: "org.puff.Echo",
                member: "Echo", [.variant(.bytes(payload))]))
        #expect(reply.arguments.first?.variantContents?.bytes == payload)

        let missing = await #expect(throws: DBusError.self) {
            _ = try await client.call(
                .methodCall(
                    destination: "org.puff.EchoTest", path: ObjectPath("/none")!, interface: "org.puff.Echo",
                    member: "Echo", [.variant(.string(""))]))
        }
        #expect(missing?.name == .unknownObject)
    }

    @Test func aSecondOwnerIsRefusedUnlessItReplaces() async throws {
        let bus = try TestBus()
        let first = try await BusConnection.connect(address: bus.address)
        let second = try await BusConnection.connect(address: bus.address)
        defer {
            first.close()
            second.close()
        }
        let name = BusName("org.puff.Owned")!
        #expect(try await first.requestName(name, replace: false) == .primaryOwner)
        #expect(try await second.requestName(name, replace: false) == .exists)
        #expect(try await second.requestName(name, replace: true) == .primaryOwner)
    }

    @Test func signalsAndPeerCredentialsArrive() async throws {
        let bus = try TestBus()
        let listener = try await BusConnection.connect(address: bus.address)
        let emitter = try await BusConnection.connect(address: bus.address)
        defer {
            listener.close()
            emitter.close()
        }
        try await listener.addMatch("type='signal',interface='org.puff.Signals'")
        emitter.send(.signal(path: ObjectPath("/s")!, interface: "org.puff.Signals", member: "Ping", [.string("x")]))
        // The bus itself sends NameAcquired first; skip to ours.
        var message: IncomingMessage?
        for await candidate in listener.messages where candidate.member == "Ping" {
            message = candidate
            break
        }
        #expect(message?.member == "Ping")
        #expect(message?.sender == emitter.uniqueName)
        let pid = try await listener.processID(of: emitter.uniqueName)
        #expect(pid > 0)
    }

    /// Counts the `released` callbacks of ``BusConnection/send(_:released:)``.
    private final class Releases: Sendable {
        let count = Mutex(0)
        func note() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test func aSentMessageIsReleasedOnceDeliveredAndOneSentAfterCloseAtOnce() async throws {
        let bus = try TestBus()
        let listener = try await BusConnection.connect(address: bus.address)
        let emitter = try await BusConnection.connect(address: bus.address)
        defer { listener.close() }
        try await listener.addMatch("type='signal',interface='org.puff.Signals'")
        // About 600 KB: more than a socket takes at once, so libdbus keeps it for several rounds.
        let paths = (0..<20_000).map { ObjectPath("/org/puff/list/\($0)")! }
        let releases = Releases()
        emitter.send(
            .signal(path: ObjectPath("/s")!, interface: "org.puff.Signals", member: "List", [.objectPaths(paths)]),
            released: { releases.note() })
        var message: IncomingMessage?
        for await candidate in listener.messages where candidate.member == "List" {
            message = candidate
            break
        }
        #expect(message?.arguments.first?.objectPaths?.count == paths.count)
        #expect(await poll(limit: HangGuard.step) { releases.value == 1 })
        // A message queued once the connection has closed is released too, never left waiting.
        emitter.close()
        for await _ in emitter.messages {}  // ends when the bus thread is done with the connection
        emitter.send(
            .signal(path: ObjectPath("/s")!, interface: "org.puff.Signals", member: "Late"),
            released: {
                releases.note()
            })
        #expect(await poll(limit: HangGuard.step) { releases.value == 2 })
    }
}
