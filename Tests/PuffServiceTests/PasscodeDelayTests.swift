// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A wrong passcode is answered after a delay that doubles with consecutive failures for that
/// collection (issue 13 item 6), timed on the fixture's manual clock; the key derivation before
/// it runs where it stalls nothing else.
@Suite struct PasscodeDelayTests {
    @Test func eachConsecutiveWrongPasscodeDoublesTheDelayUpToThirtySeconds() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.service.lock([.login])
        let delays: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)]
        for delay in delays + [.seconds(30), .seconds(30)] {
            let error = await fixture.failure(after: delay) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == .wrongPasscode)
        }
        try await fixture.unlock(.login, "correct horse")
        try await fixture.service.lock([.login])
        let afterSuccess = await fixture.failure(after: .milliseconds(500)) { () async throws(ServiceError) in
            try await fixture.unlock(.login, "wrong")
        }
        #expect(afterSuccess == .wrongPasscode, "the right passcode starts the count again")
    }

    @Test func failuresOfOneCollectionDoNotLengthenAnothersDelay() async throws {
        let fixture = try await Fixture.persistent()
        let work = try await fixture.makeCollection("Work", passcode: "work pass")
        try await fixture.service.lock([])
        for delay in [Duration.milliseconds(500), .seconds(1)] {
            let error = await fixture.failure(after: delay) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == .wrongPasscode)
        }
        let other = await fixture.failure(after: .milliseconds(500)) { () async throws(ServiceError) in
            try await fixture.unlock(work, "wrong")
        }
        #expect(other == .wrongPasscode)
        let hidden = await fixture.failure(after: .milliseconds(500)) { () async throws(ServiceError) in
            try await fixture.unlock(nil, "wrong")
        }
        #expect(hidden == .wrongPasscode)
        let change = await fixture.failure(after: .seconds(2)) { () async throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: .login, old: Fixture.passcode("wrong"), new: Fixture.passcode("new pass"))
        }
        #expect(change == .wrongPasscode, "a wrong old passcode counts as a failed attempt too")
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
            let logged = fixture.logs.entries.count
            let derivations = await fixture.service.keyDerivations
            var errors: [ServiceError?] = []
            for delay in [Duration.milliseconds(500), .seconds(1)] {
                errors.append(
                    await fixture.failure(after: delay) { () async throws(ServiceError) in
                        try await fixture.unlock(nil, "nobody's")
                    })
            }
            observed.append(
                Observation(
                    errors: errors, events: fixture.recorder.drain(), logs: Array(fixture.logs.entries[logged...]),
                    collections: await fixture.service.collections,
                    keyDerivations: await fixture.service.keyDerivations - derivations))
        }
        #expect(observed.count == 2)
        #expect(observed.first?.errors == [.wrongPasscode, .wrongPasscode])
        #expect(observed.first?.keyDerivations == 2, "one key derivation per attempt")
        #expect(observed.first == observed.last, "the same answer, delay, log and key derivations")
    }
}

extension PasscodeDelayTests {
    /// Argon2id blocks its thread; run on Swift's cooperative pool (one thread per core), a few
    /// at once stalled every other task of the process.
    @Test func keyDerivationsLeaveTheCooperativePoolFreeForOtherWork() async throws {
        let fixture = try await Fixture.persistent()
        // Attempts on one collection run one at a time: these go to four.
        var targets: [CollectionID?] = [.login, nil]
        for name in ["Work", "Home"] {
            targets.append(try await fixture.makeCollection(name, passcode: "\(name) pass"))
        }
        try await fixture.service.lock([])
        let attempts = targets.count
        let before = await fixture.service.keyDerivations
        let tasks = targets.map { target in
            Task { await serviceError { () async throws(ServiceError) in try await fixture.unlock(target, "wrong") } }
        }
        // Every attempt has reached its key derivation, which then ends in a sleep on the manual clock.
        #expect(await poll(limit: HangGuard.step) { await fixture.service.keyDerivations == before + attempts })
        await Task.detached(priority: .low) {}.value
        let finished = fixture.clock.sleeperCount
        #expect(finished <= attempts / 2, "other work ran while derivations were waiting, not after most of them")
        #expect(await fixture.clock.waitForSleepers(attempts, limit: HangGuard.step))
        fixture.clock.advance(by: .seconds(3600))
        for task in tasks { #expect(await task.value == .wrongPasscode) }
    }
}

/// Issue 24 item 11: the delay was per reply and per run, so attempts from several connections at
/// once, or a restart of puffd, multiplied the guesses per minute.
extension PasscodeDelayTests {
    @Test func wrongPasscodesForOneCollectionFromSeveralCallersAreTriedOneAtATime() async throws {
        let fixture = try await Fixture.persistent()
        try await fixture.service.lock([.login])
        let before = await fixture.service.keyDerivations
        let tasks = (0..<3).map { _ in
            Task { await serviceError { () async throws(ServiceError) in try await fixture.unlock(.login, "wrong") } }
        }
        for (index, delay) in [Duration.milliseconds(500), .seconds(1), .seconds(2)].enumerated() {
            // One attempt has derived its key and waits its delay; the others wait their turn.
            #expect(await fixture.clock.waitForSleepers(1, limit: HangGuard.step))
            #expect(await fixture.service.keyDerivations == before + index + 1, "one key derivation at a time")
            #expect(fixture.clock.sleeperCount == 1, "one delay at a time")
            fixture.clock.advance(by: delay)
            _ = await poll(limit: HangGuard.step) { fixture.clock.sleeperCount == 0 }
        }
        for task in tasks { #expect(await task.value == .wrongPasscode) }
    }

    @Test func theDelayOfTheLastWrongPasscodeStillAppliesAfterARestart() async throws {
        let storage = MemoryRecordStore()
        let fixture = try await Fixture.persistent(storage: storage)
        try await fixture.service.lock([.login])
        for delay in [Duration.milliseconds(500), .seconds(1), .seconds(2)] {
            let error = await fixture.failure(after: delay) { () async throws(ServiceError) in
                try await fixture.unlock(.login, "wrong")
            }
            #expect(error == .wrongPasscode)
        }
        let saved = try #require(await storage.passcodeAttempts().flatMap(PasscodeAttempts.init(decoding:)))
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
        #expect(await poll(limit: HangGuard.step) { await restarted.service.keyDerivations == before + 1 })
        #expect(await restarted.clock.waitForSleepers(1, limit: HangGuard.step))
        restarted.clock.advance(by: .seconds(4))
        #expect(await attempt.value == .wrongPasscode)
        try await restarted.unlock(.login, "correct horse")
        #expect(try await storage.passcodeAttempts().flatMap(PasscodeAttempts.init(decoding:))?.failures == [:])
    }
}
