// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Synchronization
import Testing

@testable import PuffDBus

/// A tree with one object at /t serving org.puff.Test, and an intermediate node at /.
private final class OneObjectTree: ObjectTree {
    let label = Mutex("start")

    /// How often the router asked where an object lives.
    let resolutions = Mutex(0)

    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
        resolutions.withLock { $0 += 1 }
        guard path.rawValue == "/t" else { return nil }
        return ResolvedObject(
            interfaces: [
                Interface(
                    "org.puff.Test",
                    methods: [
                        Method("Echo", in: [Argument("text", "s")], out: [Argument("text", "s")]) { call in
                            [call.arguments[0]]
                        },
                        Method("Fail") { _ in throw TestFailure() },
                        Method("Who", out: [Argument("who", "s")]) { call in
                            [.string("\(call.context.sender) \(call.object as? String ?? "none")")]
                        },
                    ],
                    properties: [
                        Property(
                            "Label", "s", get: { _ in .string(self.label.withLock { $0 }) },
                            set: { _, value in
                                self.label.withLock { $0 = value.string ?? "" }
                            }),
                        Property("Count", "u", get: { _ in .uint32(3) }),
                        Property("Object", "s", get: { call in .string(call.object as? String ?? "none") }),
                    ],
                    signals: [SignalDescription("Changed", [Argument("what", "o")])]
                )
            ], object: "the-t-object")
    }

    func children(of path: ObjectPath, context: CallContext) async -> [String] {
        path.rawValue == "/" ? ["t"] : []
    }
}

private struct TestFailure: Error {}

@Suite struct RouterTests {
    private let tree = OneObjectTree()
    var router: Router {
        Router(tree: tree) { _ in DBusError("org.puff.Error.Mapped", "mapped") }
    }

    private func call(_ path: String, _ interface: String?, _ member: String, _ arguments: [DBusValue] = []) async
        -> OutgoingMessage?
    {
        await router.handle(
            IncomingMessage(
                methodCallTo: ObjectPath(path)!, interface: interface, member: member, arguments: arguments),
            context: CallContext(sender: ":1.99", uid: 1000, pid: 42))
    }

    private func errorName(_ reply: OutgoingMessage?) -> String? {
        if case .error(_, let name, _)? = reply?.kind { name.rawValue } else { nil }
    }

    @Test func aMethodIsDispatchedWithOrWithoutItsInterface() async {
        let named = await call("/t", "org.puff.Test", "Echo", [.string("hi")])
        #expect(named?.body.first?.string == "hi")
        let unnamed = await call("/t", nil, "Echo", [.string("yo")])
        #expect(unnamed?.body.first?.string == "yo")
    }

    @Test func unknownPathsMethodsAndInterfacesGetTheirStandardErrors() async {
        #expect(
            errorName(await call("/nope", "org.puff.Test", "Echo", [.string("x")])) == ErrorName.unknownObject.rawValue)
        #expect(errorName(await call("/t", "org.puff.Test", "Nope")) == ErrorName.unknownMethod.rawValue)
        #expect(errorName(await call("/t", "org.puff.Other", "Echo")) == ErrorName.unknownInterface.rawValue)
    }

    @Test func aWrongSignatureIsInvalidArgsBeforeTheHandlerRuns() async {
        #expect(errorName(await call("/t", "org.puff.Test", "Echo")) == ErrorName.invalidArgs.rawValue)
        #expect(errorName(await call("/t", "org.puff.Test", "Echo", [.uint32(1)])) == ErrorName.invalidArgs.rawValue)
    }

    @Test func handlerErrorsGoThroughTheMapper() async {
        #expect(errorName(await call("/t", "org.puff.Test", "Fail")) == "org.puff.Error.Mapped")
    }

    @Test func propertiesCanBeReadWrittenAndListed() async {
        let get = await call(
            "/t", "org.freedesktop.DBus.Properties", "Get", [.string("org.puff.Test"), .string("Label")])
        #expect(get?.body.first?.variantContents?.string == "start")
        let set = await call(
            "/t", "org.freedesktop.DBus.Properties", "Set",
            [.string("org.puff.Test"), .string("Label"), .variant(.string("new"))])
        #expect(errorName(set) == nil)
        let all = await call("/t", "org.freedesktop.DBus.Properties", "GetAll", [.string("")])
        #expect(all?.body.first?.variantDictionary?["Label"]?.string == "new")
        #expect(all?.body.first?.variantDictionary?["Count"] != nil)
    }

    @Test func readOnlyUnknownAndWrongTypedPropertiesAreInvalidArgs() async {
        let properties = "org.freedesktop.DBus.Properties"
        let readOnly = await call(
            "/t", properties, "Set", [.string("org.puff.Test"), .string("Count"), .variant(.uint32(1))])
        #expect(errorName(readOnly) == ErrorName.invalidArgs.rawValue)
        let wrongType = await call(
            "/t", properties, "Set", [.string("org.puff.Test"), .string("Label"), .variant(.uint32(1))])
        #expect(errorName(wrongType) == ErrorName.invalidArgs.rawValue)
        let unknown = await call("/t", properties, "Get", [.string("org.puff.Test"), .string("Nope")])
        #expect(errorName(unknown) == ErrorName.invalidArgs.rawValue)
    }

    @Test func introspectionListsInterfacesAndChildren() async throws {
        let object = try #require(
            await call("/t", "org.freedesktop.DBus.Introspectable", "Introspect")?.body.first?.string)
        #expect(object.contains("<interface name=\"org.puff.Test\">"))
        #expect(object.contains("<arg name=\"text\" type=\"s\" direction=\"in\"/>"))
        #expect(object.contains("<property name=\"Label\" type=\"s\" access=\"readwrite\"/>"))
        #expect(object.contains("org.freedesktop.DBus.Properties"))
        let root = try #require(
            await call("/", "org.freedesktop.DBus.Introspectable", "Introspect")?.body.first?.string)
        #expect(root.contains("<node name=\"t\"/>"))
        #expect(!root.contains("org.puff.Test"))
    }

    @Test func handlersSeeTheCallerAndTheObjectResolvedOncePerCall() async {
        let who = await call("/t", "org.puff.Test", "Who")
        #expect(who?.body.first?.string == ":1.99 the-t-object")
        let before = tree.resolutions.withLock { $0 }
        let all = await call("/t", "org.freedesktop.DBus.Properties", "GetAll", [.string("org.puff.Test")])
        #expect(all?.body.first?.variantDictionary?["Object"]?.string == "the-t-object")
        #expect(tree.resolutions.withLock { $0 } == before + 1, "GetAll resolves the path once")
    }

    @Test func aBodyOverADecodeLimitIsRefusedWithLimitsExceeded() async throws {
        let bytes = try WireCodec.encode([.string(String(repeating: "x", count: 100))])
        var message = try WireCodec.decode(bytes, policy: DecodePolicy(maxBytes: 10))
        message.kind = .methodCall
        message.path = ObjectPath("/t")
        message.member = "Echo"
        message.interface = "org.puff.Test"
        message.sender = ":1.5"
        message.expectsReply = true
        let reply = await router.handle(message, context: CallContext(sender: ":1.5"))
        #expect(errorName(reply) == ErrorName.limitsExceeded.rawValue)
        #expect(ErrorName.limitsExceeded.rawValue == "org.freedesktop.DBus.Error.LimitsExceeded")
    }

    @Test func peerCallsAreAnsweredWithoutAnObject() async {
        let ping = IncomingMessage(methodCallTo: ObjectPath("/nowhere")!, interface: nil, member: "Ping")
        let reply = router.peerReply(to: ping)
        if case .methodReturn? = reply?.kind {} else { Issue.record("Ping was not answered at once") }
        let echo = IncomingMessage(methodCallTo: ObjectPath("/t")!, interface: "org.puff.Test", member: "Echo")
        #expect(router.peerReply(to: echo) == nil)
        #expect(tree.resolutions.withLock { $0 } == 0)
    }

    @Test func peerPingAnswersEverywhere() async {
        #expect(errorName(await call("/anything", "org.freedesktop.DBus.Peer", "Ping")) == nil)
        let id = await call("/t", "org.freedesktop.DBus.Peer", "GetMachineId")?.body.first?.string
        #expect(id?.count == 32)
    }
}
