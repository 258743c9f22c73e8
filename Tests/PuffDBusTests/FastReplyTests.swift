// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffDBus

/// The server answers a call on the bus thread only when that cannot overtake an earlier call of
/// the same client and its context is known without asking the bus (design core-reshaped §7).
@Suite struct FastReplyTests {
    static let call = IncomingMessage(methodCallTo: .root, interface: nil, member: "Read", sender: ":1.5", serial: 7)
    static let answer: ObjectServer.FastPath = { message, _ in .reply(to: message, [.string("fast")]) }

    static func known() async -> CallerDirectory {
        let callers = CallerDirectory { CallContext(sender: $0, uid: 1000) }
        _ = await callers.context(for: ":1.5")
        return callers
    }

    static func isFast(_ reply: OutgoingMessage?) -> Bool {
        reply?.body.first?.string == "fast"
    }

    @Test func aCallOfAClientWithAnEmptyLaneIsAnsweredOnTheBusThread() async {
        let lanes = Lanes(limit: 10)
        #expect(lanes.isIdle(":1.5"))
        let reply = ObjectServer.fastReply(
            to: Self.call, from: ":1.5", lanes: lanes, callers: await Self.known(), Self.answer)
        #expect(Self.isFast(reply))
    }

    @Test func aCallBehindOneOfTheSameClientGoesToTheLane() async {
        let lanes = Lanes(limit: 10)
        _ = lanes.submit(
            .call(IncomingMessage(methodCallTo: .root, interface: nil, member: "Write", sender: ":1.5")), from: ":1.5")
        #expect(!lanes.isIdle(":1.5"))
        #expect(
            ObjectServer.fastReply(to: Self.call, from: ":1.5", lanes: lanes, callers: await Self.known(), Self.answer)
                == nil)
        #expect(lanes.isIdle(":1.6"), "another client's lane is its own")
        // Still running its last call (taken, not yet finished): the lane is not idle.
        _ = lanes.next(for: ":1.5")
        #expect(
            ObjectServer.fastReply(to: Self.call, from: ":1.5", lanes: lanes, callers: await Self.known(), Self.answer)
                == nil)
        _ = lanes.next(for: ":1.5")
        #expect(
            Self.isFast(
                ObjectServer.fastReply(
                    to: Self.call, from: ":1.5", lanes: lanes, callers: await Self.known(), Self.answer)))
    }

    @Test func aClientWhoseContextIsNotKnownYetGoesToTheLane() async {
        let callers = CallerDirectory { CallContext(sender: $0) }
        #expect(
            ObjectServer.fastReply(to: Self.call, from: ":1.5", lanes: Lanes(limit: 10), callers: callers, Self.answer)
                == nil)
        _ = await callers.context(for: ":1.5")
        callers.forget(":1.5")
        #expect(callers.cachedContext(for: ":1.5") == nil, "a departed client's context is gone")
    }

    @Test func withoutAFastPathOrWhenItDeclinesTheCallGoesToTheLane() async {
        let callers = await Self.known()
        #expect(
            ObjectServer.fastReply(to: Self.call, from: ":1.5", lanes: Lanes(limit: 10), callers: callers, nil) == nil)
        #expect(
            ObjectServer.fastReply(
                to: Self.call, from: ":1.5", lanes: Lanes(limit: 10), callers: callers, { _, _ in nil }) == nil)
    }
}
