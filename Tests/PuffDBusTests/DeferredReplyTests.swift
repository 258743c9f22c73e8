// SPDX-License-Identifier: Apache-2.0
import Synchronization
import Testing

@testable import PuffDBus

/// A tree with one object at /d whose `Later` answers through its ``Replier``, kept in `held`.
private final class DeferringTree: ObjectTree {
    let held = Mutex<[Replier]>([])
    let mode: Mode

    enum Mode { case hold, drop, throwFirst, answerThenThrow }

    init(_ mode: Mode) { self.mode = mode }

    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
        guard path.rawValue == "/d" else { return nil }
        let mode = self.mode
        let later = Method("Later", in: [Argument("text", "s")], out: [Argument("text", "s")]) { _, replier in
            switch mode {
            case .hold: self.held.withLock { $0.append(replier) }
            case .drop: break
            case .throwFirst: throw DBusError(.invalidArgs, "refused before an answer")
            case .answerThenThrow:
                replier.reply([.string("first")])
                throw DBusError(.invalidArgs, "thrown after the answer")
            }
        }
        return ResolvedObject(interfaces: [Interface("org.puff.Later", methods: [later])], object: "d")
    }

    func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
}

/// What a ``Router`` sent through a deferred method's replier.
private final class Sent: Sendable {
    let messages = Mutex<[OutgoingMessage]>([])
    var send: @Sendable (OutgoingMessage) -> Void { { message in self.messages.withLock { $0.append(message) } } }
    var all: [OutgoingMessage] { messages.withLock { $0 } }
}

/// A method that answers later (the portal backend's `RetrieveSecret`) returns at once, so its
/// caller's lane moves on; its one answer leaves through the replier whenever it comes.
@Suite struct DeferredReplyTests {
    private func call(_ tree: DeferringTree, _ sent: Sent, serial: UInt32 = 7) async -> OutgoingMessage? {
        await Router(tree: tree) { _ in DBusError(.failed, "mapped") }.handle(
            IncomingMessage(
                methodCallTo: ObjectPath("/d")!, interface: "org.puff.Later", member: "Later",
                arguments: [.string("x")], serial: serial),
            context: CallContext(sender: ":1.99"), send: sent.send)
    }

    private static func replySerial(_ message: OutgoingMessage) -> UInt32? {
        switch message.kind {
        case .methodReturn(let serial), .error(let serial, _, _): serial
        default: nil
        }
    }

    private static func errorName(_ message: OutgoingMessage?) -> String? {
        if case .error(_, let name, _)? = message?.kind { name.rawValue } else { nil }
    }

    @Test func theRouterReturnsNothingAndTheReplierAnswersLaterOnce() async throws {
        let tree = DeferringTree(.hold)
        let sent = Sent()
        #expect(await call(tree, sent, serial: 41) == nil)
        #expect(sent.all.isEmpty, "nothing is sent before the method answers")
        let replier = try #require(tree.held.withLock { $0.first })
        #expect(replier.reply([.string("done")]))
        #expect(!replier.reply([.string("again")]), "a second answer is not sent")
        #expect(!replier.fail(DBusError(.failed, "late")))
        let messages = sent.all
        #expect(messages.count == 1)
        #expect(messages.first.flatMap(Self.replySerial) == 41)
        #expect(messages.first?.destination == ":1.99")
        #expect(messages.first?.body.first?.string == "done")
    }

    @Test func aReplierDroppedWithoutAnAnswerSendsFailedSoNobodyWaitsForever() async {
        let sent = Sent()
        #expect(await call(DeferringTree(.drop), sent) == nil)
        #expect(sent.all.count == 1)
        #expect(Self.errorName(sent.all.first) == ErrorName.failed.rawValue)
    }

    @Test func anErrorThrownBeforeAnAnswerIsTheReplyAndNothingElseIsSent() async {
        let sent = Sent()
        let reply = await call(DeferringTree(.throwFirst), sent)
        #expect(Self.errorName(reply) == ErrorName.invalidArgs.rawValue)
        #expect(sent.all.isEmpty, "the dropped replier sent no second answer")
    }

    @Test func anErrorThrownAfterTheAnswerIsNotSent() async {
        let sent = Sent()
        #expect(await call(DeferringTree(.answerThenThrow), sent) == nil)
        #expect(sent.all.count == 1)
        #expect(sent.all.first?.body.first?.string == "first")
    }
}
