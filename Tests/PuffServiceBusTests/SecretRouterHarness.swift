// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore
import PuffTesting
import Testing

@testable import PuffServiceBus

/// A service on a memory vault behind ``SecretRouter``, with no bus: each call is marshalled to
/// bytes and decoded with the router's own decode policy (``WireCodec/deliver(_:from:policy:)``),
/// answered by the router, and its reply decoded back the same way.
struct SecretRouterHarness {
    typealias Names = SecretServiceContract
    static let alice = ":1.7"
    static let bob = ":1.8"
    static let service = Names.servicePath
    static let login = Names.collectionPathPrefix + "login"
    static let defaultAlias = Names.servicePath + "/aliases/default"
    static let properties = "org.freedesktop.DBus.Properties"

    let service: SecretService
    let built: SecretRouter.Built
    let spellings = PromptSpellings()
    let recorder = EventRecorder()
    let prompter: ScriptedPrompter

    /// An ephemeral vault (its `login` unlocked, no passcodes); the prompter answers `script`.
    init(script: [ScriptedPrompter.Step] = []) async throws {
        let logger = Logger(label: "router", factory: { _ in SwiftLogNoOpLogHandler() })
        prompter = ScriptedPrompter(script)
        service = try await SecretService(
            store: MemoryRecordStore(), mode: .ephemeral, prompter: prompter, promptTimeout: .seconds(600),
            now: { 1_700_000_000 }, logger: logger, events: recorder.sink)
        built = SecretRouter.make(service: service, spellings: spellings, logger: logger)
    }

    /// The decoded reply (a return or an error) to `member` called on `path`.
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        from sender: String = alice
    ) async throws -> IncomingMessage {
        let message = try WireCodec.deliver(
            .methodCall(
                destination: Names.busName, path: try #require(ObjectPath(path)),
                interface: try #require(InterfaceName(interface)), member: try #require(MemberName(member)), arguments),
            from: sender, policy: built.decodePolicy)
        let context = CallContext(sender: sender, uid: getuid())
        let reply = try #require(await built.router.handle(message, context: context))
        return try WireCodec.deliver(reply, from: ":1.0")
    }

    /// The body of a successful reply; records an issue for an error.
    func ok(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        from sender: String = alice,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [DBusValue] {
        let reply = try await call(path, interface, member, arguments, from: sender)
        #expect(reply.kind == .methodReturn, "\(member): \(reply.errorName ?? "")", sourceLocation: sourceLocation)
        return reply.arguments
    }

    /// The error name `member` is answered with; nil for a successful reply.
    func error(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        from sender: String = alice
    ) async throws -> String? {
        let reply = try await call(path, interface, member, arguments, from: sender)
        return reply.kind == .error ? reply.errorName : nil
    }

    /// A property's value through `org.freedesktop.DBus.Properties.Get`.
    func property(_ path: String, _ interface: String, _ name: String) async throws -> DBusValue? {
        try await ok(path, Self.properties, "Get", [.string(interface), .string(name)]).first?.variantContents
    }

    /// Sets a property through `org.freedesktop.DBus.Properties.Set`; the error name, or nil.
    func set(_ path: String, _ interface: String, _ name: String, _ value: DBusValue) async throws -> String? {
        try await error(path, Self.properties, "Set", [.string(interface), .string(name), .variant(value)])
    }

    /// A plain session's path.
    func plainSession(from sender: String = alice) async throws -> String {
        let reply = try await ok(
            Self.service, Names.Interface.service, "OpenSession", [.string("plain"), .variant(.string(""))],
            from: sender)
        return try #require(reply.last?.objectPath?.rawValue)
    }

    /// A `(oayays)` secret of a plain session.
    static func secret(_ text: String, session: String) -> DBusValue {
        .structure([
            .objectPath(ObjectPath(session)!), .bytes([]), .bytes(Array(text.utf8)), .string("text/plain"),
        ])
    }

    /// Stores an item in `login` through `CreateItem`; its path.
    func createItem(
        label: String = "mail", attributes: [String: String] = ["service": "mail"], secret: String = "s3cret"
    )
        async throws -> String
    {
        let session = try await plainSession()
        let properties = DBusValue.dictionary(
            key: "s", value: "v",
            [
                .init(.string(Names.PropertyKey.itemLabel), .variant(.string(label))),
                .init(.string(Names.PropertyKey.itemAttributes), .variant(.stringDictionary(attributes))),
            ])
        let reply = try await ok(
            Self.login, Names.Interface.collection, "CreateItem",
            [properties, Self.secret(secret, session: session), .boolean(false)])
        return try #require(reply.first?.objectPath?.rawValue)
    }
}

extension [DBusValue] {
    /// The paths of the `ao` at `index`.
    func paths(at index: Int) -> [String]? {
        guard index < count else { return nil }
        return self[index].objectPaths?.map(\.rawValue)
    }
}

extension DBusValue {
    /// The number of a `t` value.
    var uint64: UInt64? {
        if case .uint64(let value) = self { value } else { nil }
    }
}
