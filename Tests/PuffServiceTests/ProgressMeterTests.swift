// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// Long work reports progress through a ``ProgressMeter``: throttled so a caller costs little,
/// the first report at once and the last always; compaction counts every record it opens and
/// every record it seals again.
@Suite struct ProgressMeterTests {
    final class Reports: Sendable {
        private let list = Mutex<[WorkProgress]>([])
        func append(_ report: WorkProgress) { list.withLock { $0.append(report) } }
        var all: [WorkProgress] { list.withLock { $0 } }
    }

    @Test func aMeterReportsAtMostOncePerIntervalAndAlwaysTheLast() {
        let time = Mutex(Duration.zero)
        let reports = Reports()
        let meter = ProgressMeter(unit: .records, handler: reports.append, now: { time.withLock { $0 } })
        meter.expect(1000)
        for _ in 0..<1000 {
            meter.advance()
            time.withLock { $0 += .milliseconds(1) }
        }
        meter.finish()
        meter.finish()
        let all = reports.all
        // One second of work: a report at 0, 100, ..., 900 ms, and the last.
        #expect(all.count == 11)
        #expect(all.first == WorkProgress(done: 1, total: 1000, unit: .records))
        #expect(all.last == WorkProgress(done: 1000, total: 1000, unit: .records))
        #expect(all.allSatisfy { $0.done <= $0.total })
    }

    @Test func aRevisedEstimateMovesTheTotalButNeverBelowWhatIsDone() {
        let reports = Reports()
        let meter = ProgressMeter(unit: .items, handler: reports.append, now: { .zero })
        meter.expect(10)
        meter.advance(by: 8)
        meter.revise(10, to: 4)
        meter.finish()
        #expect(reports.all == [.init(done: 8, total: 10, unit: .items), .init(done: 8, total: 8, unit: .items)])
    }

    @Test func compactionReportsTheRecordsItOpensAndSealsFromNoneToAll() async throws {
        let fixture = try await Fixture.persistent()
        let session = try await fixture.plainSession()
        for number in 1...6 { _ = try await CompactionTests.put(fixture, "\(number)", "v\(number)", session: session) }
        for number in 1...3 { _ = try await CompactionTests.put(fixture, "\(number)", "w\(number)", session: session) }
        let space = try await fixture.space(of: .login)
        let journal = await fixture.storage.records(of: space).count
        let reports = Reports()
        let clock = fixture.clock

        // Each report moves the service's clock past the interval, so every record gets one.
        let reclaimed = try await fixture.service.compact(.login) { report in
            reports.append(report)
            clock.advance(by: ProgressMeter.interval)
        }
        #expect(reclaimed > 0)
        let all = reports.all
        // Every record of the journal opened; the collection and its six items sealed again.
        let total = UInt64(journal + 7)
        #expect(all.map(\.done) == Array(0...total) + [total])
        #expect(all.dropFirst().allSatisfy { $0.total == total }, "the estimate is revised before the first record")
    }

    @Test func aReKeyReportsTheRecordsItOpensAndSealsFromNoneToAll() async throws {
        let fixture = try await Fixture.persistent()
        let session = try await fixture.plainSession()
        for number in 1...4 { _ = try await CompactionTests.put(fixture, "\(number)", "v\(number)", session: session) }
        _ = try await CompactionTests.put(fixture, "1", "w1", session: session)
        let journal = await fixture.storage.records(of: try await fixture.space(of: .login)).count
        let reports = Reports()
        let clock = fixture.clock

        try await fixture.service.changePasscode(
            of: .login, old: Fixture.passcode("correct horse"), new: Fixture.passcode("battery staple")
        ) { report in
            reports.append(report)
            clock.advance(by: ProgressMeter.interval)
        }
        // Every record of the journal opened; the collection and its four items sealed again.
        let total = UInt64(journal + 5)
        #expect(reports.all.map(\.done) == Array(0...total) + [total])
        #expect(reports.all.allSatisfy { $0.total == total && $0.unit == .records })
    }

    @Test func compactionWithoutAHandlerReportsNothingAndStillWorks() async throws {
        let fixture = try await Fixture.persistent()
        let session = try await fixture.plainSession()
        for _ in 1...2 { _ = try await CompactionTests.put(fixture, "1", "v", session: session) }
        #expect(try await fixture.service.compact(.login) > 0)
    }

    @Test func anImportReportsEveryItemDecidedAndTheLastOnceTheBatchIsSaved() async throws {
        let fixture = try await Fixture.persistent()
        let clock = fixture.clock
        // Each report moves the clock past the interval, so every item gets one.
        let reports = Reports()
        let outcomes = try await fixture.service.importItems(
            ImportTests.source, into: .login, dryRun: false, caller: ImportTests.caller
        ) { report in
            reports.append(report)
            clock.advance(by: ProgressMeter.interval)
        }
        #expect(outcomes.count == 3)
        #expect(reports.all.map(\.done) == [0, 1, 2, 3])
        #expect(reports.all.allSatisfy { $0.total == 3 && $0.unit == .items })

        // A batch that cannot be saved never reports its last item done.
        let failed = Reports()
        await fixture.storage.failNextWrite()
        await #expect(throws: ServiceError.failed("the import could not be saved")) {
            try await fixture.service.importItems(
                [ImportTests.item("new", "s")], into: .login, dryRun: false, caller: ImportTests.caller
            ) { report in
                failed.append(report)
                clock.advance(by: ProgressMeter.interval)
            }
        }
        #expect(failed.all.map(\.done) == [0])
    }
}
