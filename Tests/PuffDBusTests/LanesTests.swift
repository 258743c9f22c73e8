// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffDBus

/// One lane per connection: its work runs in arrival order, a full lane refuses calls but never a
/// departure, and a drained lane goes away.
@Suite struct LanesTests {
    static func call(_ serial: UInt32) -> Lanes.Work {
        .call(IncomingMessage(methodCallTo: .root, interface: nil, member: "M", serial: serial))
    }

    static func serial(_ work: Lanes.Work?) -> UInt32? {
        if case .call(let message)? = work { message.serial } else { nil }
    }

    @Test func workRunsInArrivalOrderAndADrainedLaneIsRemoved() {
        let lanes = Lanes(limit: 10)
        #expect(lanes.submit(Self.call(1), from: ":1.1") == .startRunner)
        #expect(lanes.submit(Self.call(2), from: ":1.1") == .queued)
        #expect(lanes.submit(Self.call(3), from: ":1.2") == .startRunner, "another client gets its own lane")
        #expect(Self.serial(lanes.next(for: ":1.1")) == 1)
        #expect(Self.serial(lanes.next(for: ":1.1")) == 2)
        #expect(lanes.next(for: ":1.1") == nil)
        #expect(lanes.count == 1)
        #expect(lanes.submit(Self.call(4), from: ":1.1") == .startRunner, "a new runner after the lane drained")
    }

    @Test func aFullLaneRefusesCallsButQueuesTheDepartureLast() {
        let lanes = Lanes(limit: 2)
        _ = lanes.submit(Self.call(1), from: ":1.1")
        _ = lanes.submit(Self.call(2), from: ":1.1")
        #expect(lanes.submit(Self.call(3), from: ":1.1") == .refused(limit: 2))
        #expect(lanes.submit(.departure, from: ":1.1") == .queued)
        #expect(Self.serial(lanes.next(for: ":1.1")) == 1)
        #expect(Self.serial(lanes.next(for: ":1.1")) == 2)
        guard case .departure? = lanes.next(for: ":1.1") else {
            Issue.record("the departure did not come after the calls")
            return
        }
        #expect(lanes.next(for: ":1.1") == nil)
    }

    @Test func aLongLaneKeepsItsOrderWhileItIsDrainedAndFilled() {
        let lanes = Lanes(limit: 1000)
        for serial in 1...500 { _ = lanes.submit(Self.call(UInt32(serial)), from: ":1.1") }
        var seen: [UInt32] = []
        while let work = lanes.next(for: ":1.1") {
            seen.append(Self.serial(work) ?? 0)
            if seen.count == 100 { _ = lanes.submit(Self.call(501), from: ":1.1") }
        }
        #expect(seen == Array(1...501))
    }
}
