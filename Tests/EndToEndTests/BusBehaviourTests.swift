// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffTesting
import Testing

/// Signals, prompts and session ownership as a raw D-Bus client sees them from the built daemon.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct BusBehaviourTests {
    private static let service = "org.freedesktop.secrets"
    private static let root = ObjectPath("/org/freedesktop/secrets")!
    private static let defaultAlias = ObjectPath("/org/freedesktop/secrets/aliases/default")!

    private func call(
        _ connection: BusConnection, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ body: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await connection.call(
            .methodCall(destination: Self.service, path: path, interface: interface, member: member, body)
        ).arguments
    }

    private func openPlainSession(_ connection: BusConnection) async throws -> ObjectPath {
        let reply = try await call(
            connection, Self.root, "org.freedesktop.Secret.Service", "OpenSession",
            [.string("plain"), .variant(.string(""))])
        return try #require(reply.last?.objectPath)
    }

    /// Signals from the daemon, collected until `count` arrived.
    private func signals(_ connection: BusConnection, count: Int) async -> [IncomingMessage] {
        var collected: [IncomingMessage] = []
        for await message in connection.messages
        where message.kind == .signal && message.interface != "org.freedesktop.DBus" {
            collected.append(message)
            if collected.count == count { break }
        }
        return collected
    }

    @Test func creatingAnItemSignalsItemCreatedAndTheNewItemsList() async throws {
        let daemon = try await TestDaemon()
        let client = try await BusConnection.connect(address: daemon.bus.address)
        defer { client.close() }
        try await client.addMatch("type='signal',sender='org.freedesktop.secrets'")
        let session = try await openPlainSession(client)
        let reply = try await call(
            client, Self.defaultAlias, "org.freedesktop.Secret.Collection", "CreateItem",
            [
                .dictionary(
                    key: "s", value: "v",
                    [.init(.string("org.freedesktop.Secret.Item.Attributes"), .variant(.stringDictionary(["k": "v"])))]),
                .structure([
                    .objectPath(session), .bytes([]), .bytes(Array("pw".utf8)), .string("text/plain"),
                ]),
                .boolean(true),
            ])
        let item = try #require(reply.first?.objectPath)
        #expect(item.rawValue == "/org/freedesktop/secrets/collection/login/1")

        let received = await signals(client, count: 2)
        #expect(received.first?.member == "ItemCreated")
        #expect(received.first?.path?.rawValue == "/org/freedesktop/secrets/collection/login")
        #expect(received.first?.arguments.first?.objectPath == item)
        let changed = received.last?.arguments
        #expect(received.last?.member == "PropertiesChanged")
        #expect(changed?.dropFirst().first?.variantDictionary?["Items"]?.objectPaths == [item])
    }

    @Test func anUnlockPromptCompletesDismissedWithATypedResultForItsOwnerOnly() async throws {
        let daemon = try await TestDaemon()
        let client = try await BusConnection.connect(address: daemon.bus.address)
        let other = try await BusConnection.connect(address: daemon.bus.address)
        defer {
            client.close()
            other.close()
        }
        try await client.addMatch(
            "type='signal',sender='org.freedesktop.secrets',interface='org.freedesktop.Secret.Prompt'")
        _ = try await call(
            client, Self.root, "org.freedesktop.Secret.Service", "Lock", [.objectPaths([Self.defaultAlias])])
        let unlock = try await call(
            client, Self.root, "org.freedesktop.Secret.Service", "Unlock", [.objectPaths([Self.defaultAlias])])
        #expect(unlock.first?.objectPaths == [])
        let prompt = try #require(unlock.last?.objectPath)
        #expect(prompt != .root)

        let refused = await #expect(throws: DBusError.self) {
            _ = try await call(other, prompt, "org.freedesktop.Secret.Prompt", "Prompt", [.string("")])
        }
        #expect(refused?.name == .accessDenied, "another connection's prompt")
        _ = try await call(client, prompt, "org.freedesktop.Secret.Prompt", "Prompt", [.string("")])
        let completed = await signals(client, count: 1).first
        #expect(completed?.member == "Completed")
        #expect(completed?.path == prompt)
        #expect(completed?.destination == client.uniqueName)
        #expect(completed?.arguments.first?.bool == true)
        #expect(completed?.arguments.last?.variantContents?.signature == "ao")
    }

    @Test func aClientsSessionsCloseWhenItLeavesTheBus() async throws {
        let daemon = try await TestDaemon()
        let leaving = try await BusConnection.connect(address: daemon.bus.address)
        let session = try await openPlainSession(leaving)
        let observer = try await BusConnection.connect(address: daemon.bus.address)
        defer { observer.close() }
        _ = try await call(observer, session, "org.freedesktop.DBus.Introspectable", "Introspect")
        leaving.close()

        // NameOwnerChanged reaches the daemon asynchronously; poll until the session is gone.
        let gone = await poll(limit: HangGuard.step, every: .milliseconds(20)) {
            do {
                _ = try await call(observer, session, "org.freedesktop.DBus.Introspectable", "Introspect")
                return false
            } catch let error as DBusError {
                #expect(error.name.rawValue == "org.freedesktop.Secret.Error.NoSuchObject")
                return true
            } catch {
                Issue.record("Introspect failed with \(error)")
                return true
            }
        }
        #expect(gone)
    }
}
