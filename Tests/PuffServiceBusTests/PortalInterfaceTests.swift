// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto
import PuffDBus
import PuffService
import PuffStore
import PuffSystem
import PuffTesting
import Synchronization
import Testing

@testable import PuffServiceBus

/// The portal backend behind ``SecretRouter``, with no bus: calls are built by hand (they carry
/// a descriptor, which bytes cannot), and the deferred replies are collected as they are sent.
private final class PortalHarness: Sendable {
    static let portal = ":1.4"
    static let app = ":1.30"
    static let handle = "/org/freedesktop/portal/desktop/request/1_30/t1"

    let service: SecretService
    let built: SecretRouter.Built
    let prompter: ScriptedPrompter
    let replies = Mutex<[OutgoingMessage]>([])

    /// An ephemeral vault (its `login` unlocked); the bus says `owner` owns the portal's name.
    init(owner: String? = PortalHarness.portal, script: [ScriptedPrompter.Step] = []) async throws {
        let logger = Logger(label: "portal", factory: { _ in SwiftLogNoOpLogHandler() })
        prompter = ScriptedPrompter(script)
        service = try await SecretService(
            store: MemoryRecordStore(), mode: .ephemeral, prompter: prompter, promptTimeout: .seconds(600),
            now: { 1_700_000_000 }, logger: logger, events: { _ in })
        built = SecretRouter.make(service: service, portalOwner: { owner }, logger: logger)
    }

    /// What `member` of `interface` at `path` answers at once: nil when it answers later.
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue], from sender: String,
        sandbox: CallerSandbox = .host
    ) async -> OutgoingMessage? {
        let message = IncomingMessage(
            methodCallTo: ObjectPath(path)!, interface: interface, member: member, arguments: arguments, sender: sender)
        return await built.router.handle(
            message, context: CallContext(sender: sender, uid: getuid(), sandbox: sandbox),
            send: { reply in self.replies.withLock { $0.append(reply) } })
    }

    /// `RetrieveSecret` for `appID` into a new pipe, from `sender`: the immediate answer (an
    /// error, or nil) and the pipe's read end.
    func retrieve(
        _ appID: String, handle: String = PortalHarness.handle, from sender: String = PortalHarness.portal,
        sandbox: CallerSandbox = .host
    ) async throws -> (OutgoingMessage?, UnixFD) {
        let ends = try UnixFD.pipe()
        let immediate = await call(
            PortalNames.path.rawValue, PortalNames.secret.rawValue, "RetrieveSecret",
            [
                .objectPath(ObjectPath(handle)!), .string(appID), .unixFD(ends.write),
                .dictionary(key: "s", value: "v", []),
            ], from: sender, sandbox: sandbox)
        return (immediate, ends.read)
    }

    /// The response codes sent later, waiting until `count` have come.
    func responses(count: Int) async -> [UInt32?] {
        _ = await poll(limit: HangGuard.step) { self.replies.withLock { $0.count >= count } }
        return replies.withLock { $0.map { $0.body.first?.uint32 } }
    }

    /// The portal key items of the default collection.
    func keyItems() async throws -> [ItemID] {
        try await service.searchItems(["xdg:schema": SecretService.portalSchema]).unlocked
    }

    /// The error name of `message` as its receiver reads it; nil for a return or no message.
    static func errorName(_ message: OutgoingMessage?) -> String? {
        guard let message, let received = try? WireCodec.deliver(message, from: ":1.0") else { return nil }
        return received.kind == .error ? received.errorName : nil
    }

    /// Everything `fd` gives until end of file, or what it holds now if nobody closed it.
    static func drain(_ fd: UnixFD) -> [UInt8] {
        _ = fcntl(fd.rawValue, F_SETFL, O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd.rawValue, &chunk, chunk.count)
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}

/// How often the bus was asked who owns the portal's name.
private final class Asked: Sendable {
    let count = Mutex(0)
}

/// `org.freedesktop.impl.portal.Secret` answers only xdg-desktop-portal (``PortalGuard``): an app
/// reaching org.freedesktop.secrets through its proxy cannot ask for another app's key (F9, what
/// gnome-keyring 42 gives it).
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct PortalInterfaceTests {
    @Test func theOwnerOfThePortalsNameGetsSixtyFourBytesInItsPipe() async throws {
        let harness = try await PortalHarness()
        let (immediate, pipe) = try await harness.retrieve("org.example.App")
        #expect(immediate == nil, "answered later, so the portal's lane moves on")
        #expect(await harness.responses(count: 1) == [0])
        #expect(PortalHarness.drain(pipe).count == 64)
        #expect(try await harness.keyItems().count == 1)
    }

    @Test func aCallerThatDoesNotOwnThePortalsNameIsRefusedAndGetsNothing() async throws {
        let harness = try await PortalHarness()
        let (immediate, pipe) = try await harness.retrieve("org.example.App", from: ":1.66")
        #expect(PortalHarness.errorName(immediate) == ErrorName.accessDenied.rawValue)
        #expect(PortalHarness.drain(pipe).isEmpty)
        #expect(try await harness.keyItems().isEmpty, "no key was made for the forged call")
    }

    @Test func withNobodyOwningThePortalsNameEveryCallerIsRefused() async throws {
        let harness = try await PortalHarness(owner: nil)
        let (immediate, _) = try await harness.retrieve("org.example.App")
        #expect(PortalHarness.errorName(immediate) == ErrorName.accessDenied.rawValue)
    }

    @Test func aSandboxedConnectionOwningThePortalsNameIsRefused() async throws {
        let harness = try await PortalHarness()
        // A manifest's --own=org.freedesktop.portal.Desktop: the proxy's root names the app.
        let app = AppID(rawValue: "org.example.Hostile")!
        let (immediate, pipe) = try await harness.retrieve("org.example.App", sandbox: .app(app, instance: nil))
        #expect(PortalHarness.errorName(immediate) == ErrorName.accessDenied.rawValue)
        #expect(PortalHarness.drain(pipe).isEmpty)
        #expect(try await harness.keyItems().isEmpty)
    }

    @Test func aSandboxedOwnerIsRefusedWithoutAskingTheBus() async {
        let asked = Asked()
        let gate = PortalGuard {
            asked.count.withLock { $0 += 1 }
            return PortalHarness.portal
        }
        let app = AppID(rawValue: "org.example.App")!
        let sandboxed = Caller(ClientID(PortalHarness.portal), sandbox: .app(app, instance: nil))
        #expect(await gate.refusal(of: sandboxed) == .sandboxed)
        #expect(
            await gate.refusal(of: Caller(ClientID(PortalHarness.portal), sandbox: .unverified("gone"))) == .sandboxed)
        #expect(asked.count.withLock { $0 } == 0)
        #expect(await gate.refusal(of: Caller(ClientID(PortalHarness.portal))) == nil)
        #expect(await gate.refusal(of: Caller(ClientID(":1.66"))) == .notThePortal(owner: PortalHarness.portal))
    }

    @Test func anEmptyOrInvalidAppIDOrAHandleElsewhereGetsResponseTwo() async throws {
        let harness = try await PortalHarness()
        _ = try await harness.retrieve("")
        _ = try await harness.retrieve("not an id", handle: PortalHarness.handle + "b")
        _ = try await harness.retrieve("org.example.App", handle: "/org/freedesktop/secrets/collection/login")
        #expect(await harness.responses(count: 3) == [2, 2, 2])
        #expect(try await harness.keyItems().isEmpty)
    }

    @Test func closeFromThePortalWithdrawsTheQuestionAndAnswersOne() async throws {
        let harness = try await PortalHarness(script: [.hold])
        try await harness.service.lock([.login])
        let (immediate, pipe) = try await harness.retrieve("org.example.App")
        #expect(immediate == nil)
        #expect(await harness.prompter.waitUntilHolding(1))
        let request = await harness.prompter.requests.first
        #expect(request?.application == "org.example.App", "the person is told which app asks")
        let stranger = await harness.call(
            PortalHarness.handle, PortalNames.request.rawValue, "Close", [], from: ":1.66")
        #expect(PortalHarness.errorName(stranger) == ErrorName.accessDenied.rawValue)
        let closed = await harness.call(
            PortalHarness.handle, PortalNames.request.rawValue, "Close", [], from: PortalHarness.portal)
        #expect(closed != nil && PortalHarness.errorName(closed) == nil)
        #expect(await harness.prompter.waitForCancellations(1))
        #expect(await harness.responses(count: 1) == [1])
        #expect(PortalHarness.drain(pipe).isEmpty)
    }

    @Test func theVersionIsOneForAnyCaller() async throws {
        let harness = try await PortalHarness()
        let reply = await harness.call(
            PortalNames.path.rawValue, "org.freedesktop.DBus.Properties", "Get",
            [.string(PortalNames.secret.rawValue), .string("version")], from: ":1.66")
        #expect(reply?.body.first?.variantContents?.uint32 == 1)
    }
}
