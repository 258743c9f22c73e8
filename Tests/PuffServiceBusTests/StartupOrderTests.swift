// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffServiceBus
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// puffd's start-up order (design core-reshaped §4): the service is made without touching the
/// vault, the name is taken, and only then is the vault read; calls that need it wait in their
/// client's lane and are answered in the order they were sent.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct StartupOrderTests {
    static let name = "org.freedesktop.secrets.startup"
    static let root = ObjectPath("/org/freedesktop/secrets")!
    static let logger = Logger(label: "startup", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A memory vault holding one item in `login`, written by an earlier run whose key is gone:
    /// a later run finds it locked, through the blind index.
    static func vaultWithOneItem() async throws -> (MemoryRecordStore, ItemID) {
        let memory = MemoryRecordStore()
        let earlier = try await SecretService(
            store: memory, mode: .ephemeral, prompter: DismissingPrompter(logger: logger), promptTimeout: .seconds(30),
            now: { 1 }, logger: logger, events: { _ in })
        let client = ClientID(":1.0")
        let session = try await earlier.openSession(algorithm: "plain", input: .string(""), client: client).session
        let secret = TransportSecret(
            session: session, parameters: [], value: SecureBytes(unwipedCopyOf: Array("kept".utf8)),
            contentType: "text/plain")
        let item = try await earlier.createItem(
            in: .login, label: "kept", attributes: ["app": "startup"], type: "", secret: secret, replace: false,
            client: client)
        return (memory, item)
    }

    /// Waits for `condition`, a hold point the test itself brings about; the limit only stops a
    /// broken start-up from hanging the run.
    static func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let giveUp = clock.now.advanced(by: .seconds(HangGuard.testMinutes * 60))
        while !(await condition()) {
            guard clock.now < giveUp else { throw StartupOrderFailure(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func call(_ member: MemberName, _ path: ObjectPath, _ interface: InterfaceName, _ body: [DBusValue])
        -> OutgoingMessage
    {
        .methodCall(destination: name, path: path, interface: interface, member: member, body)
    }

    @Test func theNameIsOwnedWhileTheVaultLoadsAndCallsThatNeedItAreAnsweredInOrderAfterIt() async throws {
        let (memory, item) = try await Self.vaultWithOneItem()
        let store = HoldingRecordStore(memory)
        let bus = try TestBus()
        let server = try await BusConnection.connect(address: bus.address)
        server.holdMethodCalls()
        let publisher = SignalPublisher(connection: server)
        let service = try await SecretService(
            store: store, mode: .ephemeral, prompter: DismissingPrompter(logger: Self.logger),
            promptTimeout: .seconds(30), now: { 1 }, logger: Self.logger, events: publisher.sink, loading: .later)
        #expect(store.calls == 0, "making the service read nothing of the vault")
        let served = SecretServiceBus(connection: server, service: service, publisher: publisher, logger: Self.logger)
        try await served.subscribe()
        #expect(try await server.requestName(BusName(Self.name)!, replace: false) == .primaryOwner)
        store.hold()
        let serving = Task { await served.run() }
        let loading = Task {
            try await service.loadVault()
            await service.becomeReady()
        }
        defer {
            store.release()
            serving.cancel()
            server.close()
        }
        try await Self.waitUntil("the load parked in the store") { store.isHolding }

        let client = try await BusConnection.connect(address: bus.address)
        defer { client.close() }
        let owned = try await client.call(
            .methodCall(
                destination: "org.freedesktop.DBus", path: ObjectPath("/org/freedesktop/DBus")!,
                interface: "org.freedesktop.DBus", member: "NameHasOwner", [.string(Self.name)]))
        #expect(owned.arguments.first?.bool == true, "the name is owned while the vault loads")
        let opened = try await client.call(
            Self.call(
                "OpenSession", Self.root, "org.freedesktop.Secret.Service", [.string("plain"), .variant(.string(""))]))
        let session = try #require(opened.arguments.last?.objectPath)
        #expect(store.isHolding, "OpenSession was answered while the load was held")

        // Sent back to back; their replies arrive on the stream, in the order they are sent.
        client.send(
            Self.call(
                "SearchItems", Self.root, "org.freedesktop.Secret.Service", [.stringDictionary(["app": "startup"])]))
        client.send(
            Self.call("GetSecret", ObjectPaths.path(of: item), "org.freedesktop.Secret.Item", [.objectPath(session)]))
        let replies = Replies()
        let collecting = Task {
            for await message in client.messages where message.kind == .methodReturn || message.kind == .error {
                if replies.add(message) == 2 { break }
            }
        }
        try await Self.waitUntil("SearchItems waiting for the vault, or an answer") {
            await service.callsWaitingForVault == 1 || replies.count > 0
        }
        #expect(replies.count == 0, "nothing was answered before the vault loaded")
        #expect(store.isHolding)
        store.release()
        try await loading.value
        await collecting.value
        let answered = replies.all
        try #require(answered.count == 2)
        #expect(answered[0].kind == .methodReturn, "SearchItems is answered first")
        #expect(answered[0].arguments.count == 2)
        #expect(answered[0].arguments.last?.objectPaths == [ObjectPaths.path(of: item)], "a locked hit")
        #expect(answered[1].errorName == "org.freedesktop.Secret.Error.IsLocked", "then GetSecret, refused as locked")
    }
}

/// Replies as they arrive on a client's stream.
final class Replies: Sendable {
    private let messages = Mutex<[IncomingMessage]>([])

    /// Adds `message`; returns how many there are now.
    func add(_ message: IncomingMessage) -> Int {
        messages.withLock {
            $0.append(message)
            return $0.count
        }
    }

    var count: Int { messages.withLock { $0.count } }
    var all: [IncomingMessage] { messages.withLock { $0 } }
}

struct StartupOrderFailure: Error, CustomStringConvertible {
    let what: String
    var description: String { "gave up waiting for \(what)" }
}
