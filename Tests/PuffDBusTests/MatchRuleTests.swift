// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffTesting
import Testing

/// Match rules as `AddMatch` reads them, and signals from a well-known name reaching a connection
/// that matched them on a real `dbus-daemon`.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct MatchRuleTests {
    @Test func aRuleQuotesEveryValueAndEscapesQuotesAsTheSpecificationSays() {
        let rule = MatchRule.signal(
            sender: BusName("org.freedesktop.login1"), interface: "org.freedesktop.login1.Session", member: "Lock",
            path: ObjectPath("/org/freedesktop/login1/session/_32"), arg0: #"it's \ odd"#)
        #expect(
            rule.text
                == "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.login1.Session',"
                + #"member='Lock',path='/org/freedesktop/login1/session/_32',arg0='it'\''s \ odd'"#)
        #expect(MatchRule.signal(member: "Ping").text == "type='signal',member='Ping'")
    }

    @Test(.enabled(if: TestBus.isAvailable))
    func signalsOfTheNamesOwnerArriveAndNameOwnerNamesIt() async throws {
        let bus = try TestBus()
        let owner = try await BusConnection.connect(address: bus.address)
        let stranger = try await BusConnection.connect(address: bus.address)
        let listener = try await BusConnection.connect(address: bus.address)
        defer {
            owner.close()
            stranger.close()
            listener.close()
        }
        let name = try #require(BusName("org.puff.MatchTest"))
        #expect(try await listener.nameOwner(of: name) == nil, "nobody owns it yet")
        #expect(try await owner.requestName(name, replace: false) == .primaryOwner)
        #expect(try await listener.nameOwner(of: name) == owner.uniqueName)
        try await listener.addMatch(.signal(sender: name, interface: "org.puff.Match", member: "Ping"))

        let path = ObjectPath(unchecked: "/match")
        // Neither another sender's Ping nor the owner's Pong matches; each is sent before the Ping that
        // does, so had either reached the listener it would have come first.
        stranger.send(.signal(path: path, interface: "org.puff.Match", member: "Ping", [.string("stranger")]))
        owner.send(.signal(path: path, interface: "org.puff.Match", member: "Pong", [.string("pong")]))
        // The bus keeps each sender's order, not an order across senders: a round trip of the
        // stranger's own after its signal means the bus has routed that signal already.
        _ = try await stranger.nameOwner(of: name)
        owner.send(.signal(path: path, interface: "org.puff.Match", member: "Ping", [.string("owner")]))
        var first: IncomingMessage?
        for await message in listener.messages where message.kind == .signal && message.path == path {
            first = message
            break
        }
        #expect(first?.sender == owner.uniqueName)
        #expect(first?.member == "Ping")
        #expect(first?.arguments.first?.string == "owner")
    }
}
