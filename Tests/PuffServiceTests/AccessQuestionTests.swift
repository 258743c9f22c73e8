// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// A question about a read holds the client's call: it is bounded well below the client's D-Bus
/// timeout, and whatever changed while the person was asked is looked at again (the actor is
/// re-entrant).
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct AccessQuestionTests {
    static let caller = Caller(Fixture.alice, executable: "/usr/bin/secret-tool", pid: nil)

    /// A protected item and a read of it held at the prompter.
    struct Held {
        let fixture: Fixture
        let item: ItemID
        let read: Task<Result<TransportSecret, ServiceError>, Never>

        init(timeout: Duration = Fixture.timeout) async throws {
            fixture = try await Fixture(script: [.hold], timeout: timeout)
            let item = try await fixture.store(["service": "mail"], label: "mail")
            try await fixture.service.setProtected(true, of: item)
            self.item = item
            let session = try await fixture.plainSession()
            let service = fixture.service
            read = Task { () -> Result<TransportSecret, ServiceError> in
                do throws(ServiceError) {
                    return .success(
                        try await service.secret(of: item, session: session, caller: AccessQuestionTests.caller))
                } catch {
                    return .failure(error)
                }
            }
            #expect(await fixture.prompter.waitUntilHolding(1))
        }
    }

    @Test func aConfirmationAnsweredReleasesTheSecret() async throws {
        let held = try await Held()
        await held.fixture.prompter.release(with: .confirmed)
        let secret = try await held.read.value.get()
        // A Bool, so a failure prints no secret.
        let matches = secret.value.unprotectedArray() == Array("s3cret".utf8)
        #expect(matches)
    }

    @Test func anUnansweredQuestionIsDismissedAfterTwentySecondsNotThePromptTimeout() async throws {
        let held = try await Held(timeout: .seconds(600))
        #expect(await held.fixture.clock.waitForSleepers(1))
        held.fixture.clock.advance(by: AccessConfiguration.longestQuestion - .milliseconds(1))
        held.fixture.clock.advance(by: .milliseconds(1))
        #expect(await held.read.value.failure == .readRefused(nil))
        #expect(await held.fixture.prompter.waitForCancellations(1))
    }

    @Test func aShorterPromptTimeoutBoundsTheQuestion() async throws {
        let held = try await Held(timeout: .seconds(5))
        #expect(await held.fixture.clock.waitForSleepers(1))
        held.fixture.clock.advance(by: .seconds(5))
        #expect(await held.read.value.failure == .readRefused(nil))
    }

    @Test func anItemDeletedWhileThePersonIsAskedIsNotReleased() async throws {
        let held = try await Held()
        try await held.fixture.service.deleteItem(held.item)
        await held.fixture.prompter.release(with: .confirmed)
        #expect(await held.read.value.failure == .noSuchObject)
    }

    @Test func aCollectionLockedWhileThePersonIsAskedIsNotReleased() async throws {
        let held = try await Held()
        try await held.fixture.service.lock([.login])
        await held.fixture.prompter.release(with: .confirmed)
        #expect(await held.read.value.failure == .isLocked)
    }

    @Test func otherCallsAreServedWhileAQuestionIsHeld() async throws {
        let held = try await Held()
        let other = try await held.fixture.store(["service": "other"], secret: "other")
        #expect(try await held.fixture.holds(other, "other"))
        #expect(await held.fixture.service.vaultStatus.collections.isEmpty == false)
        await held.fixture.prompter.release(with: .dismissed)
        #expect(await held.read.value.failure == .readRefused(nil))
    }
}
