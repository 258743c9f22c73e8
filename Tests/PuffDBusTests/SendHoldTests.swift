// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Testing

@testable import PuffDBus

/// Signals a call causes leave with its reply on one wake-up of the bus thread
/// (``BusConnection/sendSoon(_:)``, ``SendHold``), and none is ever left waiting.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SendHoldTests {
    static let interface: InterfaceName = "org.puff.Held"

    static func signal(_ n: Int) -> OutgoingMessage {
        .signal(path: ObjectPath("/held")!, interface: interface, member: "Note", [.int32(Int32(n))])
    }

    /// Collects the first `count` `Note` signals `listener` receives.
    static func notes(_ listener: BusConnection, count: Int) async -> [Int32] {
        var seen: [Int32] = []
        for await message in listener.messages where message.member == "Note" {
            if case .int32(let n)? = message.arguments.first { seen.append(n) }
            if seen.count == count { break }
        }
        return seen
    }

    private struct Tree: ObjectTree {
        let server: BusConnection
        func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
            ResolvedObject(
                interfaces: [
                    Interface(
                        SendHoldTests.interface,
                        methods: [
                            Method("Write", in: [Argument("n", "i")], out: [Argument("wakes", "i")]) { call in
                                guard case .int32(let n)? = call.arguments.first else { return [] }
                                let before = server.wakeUps
                                server.sendSoon(SendHoldTests.signal(Int(n)))
                                server.sendSoon(SendHoldTests.signal(Int(n) + 1))
                                // Wake-ups the signals cost before the reply.
                                return [.int32(Int32(server.wakeUps - before))]
                            }
                        ])
                ], object: "held")
        }
        func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }
    }

    @Test func aCallsTwoSignalsAndItsReplyCostOneWakeUpOfTheBusThread() async throws {
        let bus = try TestBus()
        let server = try await BusConnection.connect(address: bus.address)
        let client = try await BusConnection.connect(address: bus.address)
        #expect(try await server.requestName(BusName("org.puff.HeldTest")!, replace: false) == .primaryOwner)
        try await client.addMatch("type='signal',interface='org.puff.Held'")
        let serving = Task {
            await ObjectServer(
                connection: server, router: Router(tree: Tree(server: server)) { _ in DBusError(.failed, "") },
                callers: CallerDirectory(connection: server)
            ).run()
        }
        defer {
            serving.cancel()
            server.close()
            client.close()
        }
        func write(_ n: Int32) async throws -> Int32? {
            let reply = try await client.call(
                .methodCall(
                    destination: "org.puff.HeldTest", path: ObjectPath("/held")!, interface: Self.interface,
                    member: "Write", [.int32(n)]))
            guard case .int32(let wakes)? = reply.arguments.first else { return nil }
            return wakes
        }
        _ = try await write(1)  // the first call also asks the bus who the caller is
        let before = server.wakeUps
        #expect(try await write(10) == 0, "the signals woke nothing")
        #expect(server.wakeUps - before == 1, "they rode on the reply's wake-up")
        #expect(await Self.notes(client, count: 4) == [1, 2, 10, 11])
    }

    @Test func heldMessagesLeaveOnTheNextWakeUpAndAFullHoldWakesAtOnce() async throws {
        let bus = try TestBus()
        let listener = try await BusConnection.connect(address: bus.address)
        let emitter = try await BusConnection.connect(address: bus.address)
        defer {
            listener.close()
            emitter.close()
        }
        try await listener.addMatch("type='signal',interface='org.puff.Held'")
        let hold = SendHold()
        let start = emitter.wakeUps
        SendHold.$current.withValue(hold) {
            for n in 0..<SendHold.limit { emitter.sendSoon(Self.signal(n)) }
        }
        #expect(emitter.wakeUps == start, "held: no wake-up yet")
        SendHold.$current.withValue(hold) { emitter.sendSoon(Self.signal(SendHold.limit)) }
        #expect(emitter.wakeUps == start + 1, "one past the limit is sent as usual")
        #expect(await Self.notes(listener, count: SendHold.limit + 1) == (0...SendHold.limit).map(Int32.init))

        // A call that held a message and sends no reply wakes the loop itself.
        let second = SendHold()
        let before = emitter.wakeUps
        SendHold.$current.withValue(second) { emitter.sendSoon(Self.signal(100)) }
        second.close()
        #expect(emitter.wakeUps == before)
        emitter.wakeIfQueued()
        #expect(emitter.wakeUps == before + 1)
        #expect(await Self.notes(listener, count: 1) == [100])
        SendHold.$current.withValue(second) { emitter.sendSoon(Self.signal(101)) }
        #expect(emitter.wakeUps == before + 2, "a closed hold holds nothing")
        #expect(await Self.notes(listener, count: 1) == [101])
    }
}
