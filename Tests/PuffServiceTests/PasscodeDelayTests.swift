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
        let attempts = 8
        let before = await fixture.service.keyDerivations
        let tasks = (0..<attempts).map { _ in
            Task { await serviceError { () async throws(ServiceError) in try await fixture.unlock(nil, "wrong") } }
        }
        // Every attempt has reached its key derivation, which then ends in a sleep on the manual clock.
        #expect(await poll(limit: .seconds(30)) { await fixture.service.keyDerivations == before + attempts })
        await Task.detached(priority: .low) {}.value
        let finished = fixture.clock.sleeperCount
        #expect(finished < attempts / 2, "other work ran while derivations were waiting, not after most of them")
        #expect(await fixture.clock.waitForSleepers(attempts, limit: .seconds(60)))
        fixture.clock.advance(by: .seconds(3600))
        for task in tasks { #expect(await task.value == .wrongPasscode) }
    }
}
