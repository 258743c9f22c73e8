// SPDX-License-Identifier: Apache-2.0
import PuffTesting
import Synchronization
import Testing

@testable import PuffDBus
@testable import PuffServiceBus

@Suite struct SignalOutboxTests {
    final class Sent: Sendable {
        let paths = Mutex<[String]>([])
        var all: [String] { paths.withLock { $0 } }
        func send(_ message: OutgoingMessage) {
            guard case .signal(let path, _, _) = message.kind else { return }
            paths.withLock { $0.append(path.rawValue) }
        }
    }

    func signals(_ prefix: String, _ count: Int) -> [OutgoingMessage] {
        (0..<count).map { .signal(path: ObjectPath("/\(prefix)/\($0)")!, interface: "a.b", member: "C") }
    }

    @Test func upToAThousandItemsGoAtOnceThenTheCollectionsThenTheRestInSlices() async {
        let sent = Sent()
        let outbox = SignalOutbox(send: { sent.send($0) })
        outbox.deliver(signals("i", 2500), then: signals("c", 2))
        // deliver sent these before it returned (the slices may be under way by now).
        #expect(Array(sent.all.prefix(1002)) == (0..<1000).map { "/i/\($0)" } + ["/c/0", "/c/1"])
        #expect(await poll(limit: HangGuard.step) { outbox.waitingCount == 0 })
        #expect(sent.all == (0..<1000).map { "/i/\($0)" } + ["/c/0", "/c/1"] + (1000..<2500).map { "/i/\($0)" })
    }

    @Test func aSecondChangeSendsWhatTheFirstLeftWaitingBeforeItsOwn() async {
        let sent = Sent()
        let outbox = SignalOutbox(send: { sent.send($0) })
        outbox.deliver(signals("first", 1500), then: [])
        outbox.deliver(signals("second", 3), then: [])
        #expect(await poll(limit: HangGuard.step) { outbox.waitingCount == 0 })
        #expect(sent.all == (0..<1500).map { "/first/\($0)" } + (0..<3).map { "/second/\($0)" })
    }

    @Test func aSmallChangeLeavesNothingWaiting() {
        let sent = Sent()
        let outbox = SignalOutbox(send: { sent.send($0) })
        outbox.deliver(signals("i", 3), then: signals("c", 1))
        #expect(sent.all == ["/i/0", "/i/1", "/i/2", "/c/0"])
        #expect(outbox.waitingCount == 0)
    }
}
