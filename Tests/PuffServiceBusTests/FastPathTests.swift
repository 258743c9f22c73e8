// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffStore
import PuffTesting
import Testing

@testable import PuffServiceBus

/// `GetSecret` and `GetSecrets` answered on the bus thread (design core-reshaped §7), bus-free:
/// calls built by hand and given to ``FastPath`` with the service's ``ReadView``. A call it
/// declines (nil) goes to the caller's lane, where the service answers as before.
struct FastPathTests {
    static let alice = ":1.10"
    static let logger = Logger(label: "fast", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An ephemeral service (its `login` unlocked) with one item holding `secret`, and a plain
    /// session of alice's.
    struct Served {
        let service: SecretService
        let item: ItemID
        let session: SessionID

        init(protected: Bool = false) async throws {
            service = try await SecretService(
                store: MemoryRecordStore(), mode: .ephemeral,
                prompter: DismissingPrompter(logger: FastPathTests.logger),
                promptTimeout: .seconds(30), now: { 1 }, logger: FastPathTests.logger, events: { _ in })
            session = try await service.openSession(
                algorithm: "plain", input: .string(""), client: ClientID(FastPathTests.alice)
            )
            .session
            let secret = TransportSecret(
                session: session, parameters: [], value: SecureBytes(unwipedCopyOf: Array("hunter2".utf8)),
                contentType: "text/plain")
            item = try await service.createItem(
                in: .login, label: "one", attributes: ["a": "1"], type: "", secret: secret, replace: true,
                client: ClientID(FastPathTests.alice))
            if protected { try await service.setProtected(true, of: item) }
        }

        var itemPath: ObjectPath { ObjectPaths.path(of: item) }
        var sessionPath: ObjectPath { ObjectPaths.path(of: session) }

        func getSecret(from sender: String = FastPathTests.alice, session: ObjectPath? = nil) -> OutgoingMessage? {
            let call = IncomingMessage(
                methodCallTo: itemPath, interface: "org.freedesktop.Secret.Item", member: "GetSecret",
                arguments: [.objectPath(session ?? sessionPath)], sender: sender)
            return FastPath.reply(to: call, context: CallContext(sender: sender), view: service.readView)
        }
    }

    static func secretText(_ value: DBusValue?) -> String? {
        guard let fields = value?.fields, fields.count == 4, let secret = fields[2].secret else { return nil }
        return String(decoding: secret.unprotectedArray(), as: UTF8.self)
    }

    @Test func getSecretOfAnUnlockedItemIsAnsweredWithTheSecretForTheSession() async throws {
        let served = try await Served()
        let reply = served.getSecret()
        #expect(Self.secretText(reply?.body.first) == "hunter2")
        #expect(reply?.body.first?.fields?.first?.objectPath == served.sessionPath)
        #expect(reply?.body.first?.fields?.last?.string == "text/plain")
    }

    @Test func getSecretWithAnotherClientsSessionIsLeftToTheLane() async throws {
        let served = try await Served()
        #expect(served.getSecret(from: ":1.11") == nil)
        #expect(served.getSecret(session: ObjectPath("/org/freedesktop/secrets/session/none")!) == nil)
        #expect(served.getSecret(session: .root) == nil)
    }

    @Test func getSecretOfAConfirmItemIsLeftToTheLaneWhereThePersonIsAsked() async throws {
        let served = try await Served(protected: true)
        #expect(served.getSecret() == nil)
    }

    @Test func getSecretAfterLockIsLeftToTheLane() async throws {
        let served = try await Served()
        #expect(served.getSecret() != nil)
        _ = await served.service.lock(
            [.collection(.login)], client: ClientID(Self.alice))
        #expect(served.getSecret() == nil)
    }

    @Test func getSecretsAnswersEveryPathAsAskedOnceOrLeavesTheWholeCallToTheLane() async throws {
        let served = try await Served()
        func getSecrets(_ paths: [ObjectPath]) -> OutgoingMessage? {
            let call = IncomingMessage(
                methodCallTo: SecretServiceNames.servicePath, interface: "org.freedesktop.Secret.Service",
                member: "GetSecrets", arguments: [.objectPaths(paths), .objectPath(served.sessionPath)],
                sender: Self.alice)
            return FastPath.reply(to: call, context: CallContext(sender: Self.alice), view: served.service.readView)
        }
        let reply = getSecrets([served.itemPath, served.itemPath])
        guard case .dictionary(_, _, let entries)? = reply?.body.first else {
            Issue.record("GetSecrets was not answered with a dictionary")
            return
        }
        #expect(entries.map(\.key.objectPath) == [served.itemPath])
        #expect(Self.secretText(entries.first?.value) == "hunter2")
        let unknown = ObjectPaths.path(of: ItemID(collection: .login, number: 99))
        #expect(getSecrets([served.itemPath, unknown]) == nil, "the lane leaves out what it cannot read")
        #expect(getSecrets(Array(repeating: served.itemPath, count: ReadView.batchLimit + 1)) == nil)
    }

    @Test func otherCallsAndOtherSignaturesAreLeftToTheLane() async throws {
        let served = try await Served()
        let view = served.service.readView
        let context = CallContext(sender: Self.alice)
        let setSecret = IncomingMessage(
            methodCallTo: served.itemPath, interface: "org.freedesktop.Secret.Item", member: "SetSecret",
            arguments: [.objectPath(served.sessionPath)], sender: Self.alice)
        #expect(FastPath.reply(to: setSecret, context: context, view: view) == nil)
        let wrongType = IncomingMessage(
            methodCallTo: served.itemPath, interface: "org.freedesktop.Secret.Item", member: "GetSecret",
            arguments: [.string("/org/freedesktop/secrets/session/s1")], sender: Self.alice)
        #expect(FastPath.reply(to: wrongType, context: context, view: view) == nil, "the lane answers InvalidArgs")
        let alias = IncomingMessage(
            methodCallTo: ObjectPath("/org/freedesktop/secrets/aliases/default/\(served.item.number)")!,
            interface: nil, member: "GetSecret", arguments: [.objectPath(served.sessionPath)], sender: Self.alice)
        #expect(FastPath.reply(to: alias, context: context, view: view) == nil)
    }
}

extension FastPathTests {
    static func search(_ query: [String: String], _ served: Served) -> (unlocked: [ObjectPath], locked: [ObjectPath])? {
        let call = IncomingMessage(
            methodCallTo: SecretServiceNames.servicePath, interface: "org.freedesktop.Secret.Service",
            member: "SearchItems", arguments: [.stringDictionary(query)], sender: alice)
        guard let reply = FastPath.reply(to: call, context: CallContext(sender: alice), view: served.service.readView)
        else { return nil }
        return (reply.body[0].objectPaths ?? [], reply.body[1].objectPaths ?? [])
    }

    @Test func searchItemsFindsWhatTheServiceFindsUnlockedThenLocked() async throws {
        let served = try await Served()
        let actor = try await served.service.searchItems(["a": "1"])
        #expect(actor.unlocked == [served.item])
        #expect(Self.search(["a": "1"], served)?.unlocked == [served.itemPath])
        #expect(Self.search(["a": "2"], served)?.unlocked == [])
        _ = await served.service.lock(
            [.collection(.login)], client: ClientID(Self.alice))
        let locked = try await served.service.searchItems(["a": "1"])
        let fast = Self.search(["a": "1"], served)
        #expect(fast?.unlocked == ObjectPaths.paths(of: locked.unlocked))
        #expect(fast?.locked == ObjectPaths.paths(of: locked.locked))
        #expect(Self.search([:], served) == nil, "an empty query, which matches everything, is the lane's")
    }
}
