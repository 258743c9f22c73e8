// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A wrong passcode is answered at once with the delay before the next try is accepted, which
/// doubles with consecutive failures for that collection (issue 13 item 6, issue 24 item 22);
/// the next try waits it out on the fixture's manual clock. The key derivation runs where it
/// stalls nothing else.
@Suite struct PasscodeDelayTests {
    static func wrong(_ attempt: Int, _ delay: Duration) -> ServiceError {
        .wrongPasscode(PasscodeRetry(attempt: attempt, delay: delay))
    }

    @Test func eachConsecutiveWrongPasscodeAnnouncesADoublingDelayUpToThirtySecondsThatTheNextTryWaits()
        async throws
    {
        let fixture = try await Fixture.persistent()
        try await fixture.service.lock([.login])
        let delays: [Duration] = [
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30),
            .seconds(30),
        ]
        let first = await fixture.failure(after: .zero) { () async throws(ServiceError) in
            try await fixture.unlock(.login, "wrong")
        }
        #expect(first == Self.wrong(1, delays[0]), "answered at once, announcing the delay")
        for (index, delay) in delays.enumerated().dropLast() {
            // The next try is accepted only once the announced delay has passed.
            let error = await fixture.failure(after: delay) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == Self.wrong(index + 2, delays[index + 1]))
        }
        fixture.clock.advance(by: .seconds(30))
        try await fixture.unlock(.login, "correct horse")
        try await fixture.service.lock([.login])
        let afterSuccess = await fixture.failure(after: .zero) { () async throws(ServiceError) in
            try await fixture.unlock(.login, "wrong")
        }
        #expect(afterSuccess == Self.wrong(1, .milliseconds(500)), "the right passcode starts the count again")
    }

    @Test func theAnnouncedDelayReadsAsAPersonWouldSayIt() {
        let shown = [Duration.milliseconds(500), .seconds(1), .seconds(30), .milliseconds(1250)].map {
            PasscodeRetry(attempt: 1, delay: $0).shownDelay
        }
        #expect(shown == ["0.5 s", "1 s", "30 s", "1.3 s"])
        #expect(Self.wrong(2, .seconds(1)).description == "wrong passcode; the next try is accepted in 1 s")
    }

    @Test func failuresOfOneCollectionDoNotLengthenAnothersDelay() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work pass")
        try await fixture.service.lock([])
        for (attempt, delay) in [(1, Duration.zero), (2, .milliseconds(500))] {
            let error = await fixture.failure(after: delay) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == Self.wrong(attempt, .milliseconds(500) * attempt))
        }
        let other = await fixture.failure(after: .zero) { () async throws(ServiceError) in
            try await fixture.unlock(work, "wrong")
        }
        #expect(other == Self.wrong(1, .milliseconds(500)))
        let hidden = await fixture.failure(after: .zero) { () async throws(ServiceError) in
            try await fixture.unlock(nil, "wrong")
        }
        #expect(hidden == Self.wrong(1, .milliseconds(500)))
        let change = await fixture.failure(after: .seconds(1)) { () async throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: .login, old: Fixture.passcode("wrong"), new: Fixture.passcode("new pass"))
        }
        #expect(change == Self.wrong(3, .seconds(2)), "a wrong old passcode counts as a failed attempt too")
    }

    /// What a caller with a wrong passcode can observe of the hidden-unlock path.
    struct Observation: Equatable {
        var errors: [ServiceError?]
        var events: [ServiceEvent]
        var logs: [String]
        var collections: [CollectionID]
        var keyDerivations: Int
    }

    @Test func aWrongHiddenPasscodeIsAnsweredAlikeWhetherOrNotHiddenCollectionsExist() async throws {
        var observed: [Observation] = []
        for hasHidden in [false, true] {
            let fixture = try await Fixture.persistent()
            if hasHidden {
                for name in ["One", "Two"] {
                    _ = try await fixture.makeCollection(name, passcode: "\(name) pass", isHidden: true)
                }
                try await fixture.service.lock([])
                try await fixture.unlock(.login, "correct horse")
            }
            _ = fixture.recorder.drain()
            let logged = fixture.logs.lines.count
            let derivations = await fixture.service.keyDerivations
            var errors: [ServiceError?] = []
            for delay in [Duration.zero, .milliseconds(500)] {
                errors.append(
                    await fixture.failure(after: delay) { () async throws(ServiceError) in
                        try await fixture.unlock(nil, "nobody's")
                    })
            }
            observed.append(
                Observation(
                    errors: errors, events: fixture.recorder.drain(), logs: Array(fixture.logs.lines[logged...]),
                    collections: await fixture.service.collections,
                    keyDerivations: await fixture.service.keyDerivations - derivations))
        }
        #expect(observed.count == 2)
        #expect(observed.first?.errors == [Self.wrong(1, .milliseconds(500)), Self.wrong(2, .seconds(1))])
        #expect(observed.first?.keyDerivations == 2, "one key derivation per attempt")
        #expect(observed.first == observed.last, "the same answer, delay, log and key derivations")
    }
}

extension PasscodeDelayTests {
    /// Argon2id blocks its thread; run on Swift's cooperative pool (one thread per core), a few
    /// at once stalled every other task of the process. A derivation held on its thread must
    /// leave the pool free: work on the pool runs before the hold is let go, not once its guard
    /// (``HangGuard/step``) gives up on being let go.
    @Test func keyDerivationsLeaveTheCooperativePoolFreeForOtherWork() async throws {
        let fixture = try await Fixture.persistent()
        // Attempts on one collection run one at a time: these go to four.
        var targets: [CollectionID?] = [.login, nil]
        for name in ["Work", "Home"] {
            targets.append(try await fixture.makeCollection(name, passcode: "\(name) pass"))
        }
        try await fixture.service.lock([])
        let hold = DerivationHold()
        await fixture.service.runBeforeKeyDerivation { hold.wait() }
        let attempts = targets.count
        let before = await fixture.service.keyDerivations
        let tasks = targets.map { target in
            Task {
                await serviceError { () async throws(ServiceError) in try await fixture.unlock(target, "wrong") }
            }
        }
        #expect(await poll(limit: HangGuard.step) { await fixture.service.keyDerivations == before + attempts })
        #expect(hold.waitUntilHeld(), "a derivation reached its hold")
        for _ in 0..<(2 * attempts) { await Task.detached(priority: .low) {}.value }
        #expect(!hold.gaveUp, "tasks on the pool ran while a derivation held its thread")
        hold.letGo()
        for task in tasks { #expect(await task.value == Self.wrong(1, .milliseconds(500))) }
    }
}

/// Holds key derivations on their threads until let go, or until ``HangGuard/step`` has passed
/// (then ``gaveUp``): a derivation on the cooperative pool starves the test's own tasks, which
/// could then never let it go.
final class DerivationHold: @unchecked Sendable {
    private let condition = NSCondition()
    private var held = 0
    private var open = false
    private var timedOut = false

    var gaveUp: Bool {
        condition.lock()
        defer { condition.unlock() }
        return timedOut
    }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        held += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: Double(HangGuard.step.components.seconds))
        while !open {
            if !condition.wait(until: deadline) {
                timedOut = true
                open = true  // the derivations behind it need not wait out a guard each
                return
            }
        }
    }

    func waitUntilHeld() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: Double(HangGuard.step.components.seconds))
        while held == 0 { if !condition.wait(until: deadline) { return false } }
        return true
    }

    func letGo() {
        condition.lock()
        open = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Issue 24 item 11: the delay was per reply and per run, so attempts from several connections at
/// once, or a restart of puffd, multiplied the guesses per minute.
extension PasscodeDelayTests {
    @Test func wrongPasscodesForOneCollectionFromSeveralCallersAreTriedOneAtATime() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.service.lock([.login])
        let before = await fixture.service.keyDerivations
        let answered = (0..<3).map { _ in Flag() }
        let tasks = answered.map { flag in
            Task {
                let error = await serviceError { () async throws(ServiceError) in
                    try await fixture.unlock(.login, "wrong")
                }
                flag.set()
                return error
            }
        }
        // The first is tried at once; each other one waits, in turn, the delay the one before announced.
        #expect(await poll(limit: HangGuard.step) { await fixture.service.keyDerivations == before + 1 })
        for (index, delay) in [Duration.milliseconds(500), .seconds(1)].enumerated() {
            #expect(await fixture.clock.waitForSleepers(1, limit: HangGuard.step))
            #expect(await fixture.service.keyDerivations == before + index + 1, "one key derivation at a time")
            #expect(fixture.clock.sleeperCount == 1, "one delay at a time")
            fixture.clock.advance(by: delay)
            _ = await poll(limit: HangGuard.step) { fixture.clock.sleeperCount == 0 }
        }
        // Nothing sleeps any more when the checks above held. When one did not (an attempt late to
        // its delay on a slow machine), the clock moves on until every attempt is answered, so the
        // test reports its failures instead of waiting forever on the manual clock.
        _ = await poll(limit: HangGuard.driver) {
            if answered.allSatisfy(\.isSet) { return true }
            if fixture.clock.sleeperCount > 0 { fixture.clock.advance(by: .seconds(30)) }
            return false
        }
        var attempts: [Int] = []
        for task in tasks {
            if case .wrongPasscode(let retry?)? = await task.value { attempts.append(retry.attempt) }
        }
        #expect(attempts.sorted() == [1, 2, 3])
        #expect(await fixture.service.keyDerivations == before + 3)
    }

    @Test func theDelayOfTheLastWrongPasscodeStillAppliesAfterARestart() async throws {
        let storage = MemoryRecordStore()
        let fixture = try await Fixture.persistent(storage: storage)
        try await fixture.service.lock([.login])
        for (attempt, wait) in [(1, Duration.zero), (2, .milliseconds(500)), (3, .seconds(1))] {
            let error = await fixture.failure(after: wait) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == Self.wrong(attempt, .milliseconds(500) * (1 << (attempt - 1))))
        }
        let saved = try #require(try await storage.passcodeAttempts().flatMap(PasscodeAttempts.init(decoding:)))
        #expect(saved.failures["login"]?.count == 3)

        // The same moment, another run: the next attempt first waits out the 2 s, then counts a fourth.
        let restarted = try await fixture.restarted()
        let before = await restarted.service.keyDerivations
        let attempt = Task {
            await serviceError { () async throws(ServiceError) in try await restarted.unlock(.login, "wrong") }
        }
        #expect(await restarted.clock.waitForSleepers(1, limit: HangGuard.step))
        restarted.clock.advance(by: .seconds(2) - .milliseconds(1))
        #expect(await restarted.service.keyDerivations == before, "nothing tried before the 2 s passed")
        restarted.clock.advance(by: .milliseconds(1))
        #expect(await attempt.value == Self.wrong(4, .seconds(4)))
        #expect(await restarted.service.keyDerivations == before + 1)
        restarted.clock.advance(by: .seconds(4))
        try await restarted.unlock(.login, "correct horse")
        #expect(try await storage.passcodeAttempts().flatMap(PasscodeAttempts.init(decoding:))?.failures == [:])
    }
}
