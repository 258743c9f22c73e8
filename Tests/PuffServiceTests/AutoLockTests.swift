// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Collections lock by themselves after an idle time and after a maximum time, timed on the
/// manual clock; `lockAll` locks what is unlocked and nothing else.
@Suite struct AutoLockTests {
    static let idle = Duration.seconds(600)

    /// An ephemeral service timed by `settings` whose `login` holds one item stored at time zero.
    static func fixture(_ settings: AutoLockSettings) async throws -> (Fixture, ItemID) {
        let fixture = try await Fixture(autoLock: settings)
        let item = try await fixture.store(["k": "v"])
        _ = fixture.recorder.drain()
        return (fixture, item)
    }

    static func loginIsLocked(_ fixture: Fixture) async throws -> Bool {
        try await fixture.service.collectionInfo(.login).isLocked
    }

    /// Waits in real time for `login` to announce its lock.
    static func waitForLoginLock(_ fixture: Fixture) async -> Bool {
        await fixture.recorder.waitFor { $0 == .lockChanged(.login, locked: true, view: .lockedOnly) } != nil
    }

    @Test func anIdleCollectionLocksAfterTheIdleTimeAndNotBefore() async throws {
        let (fixture, item) = try await Self.fixture(AutoLockSettings(idle: Self.idle, maximum: nil))
        #expect(await fixture.clock.waitForSleepers(1), "the timer sleeps on the service's clock")
        fixture.clock.advance(by: Self.idle - .milliseconds(1))
        // advance(by:) wakes due sleepers synchronously: the timer still sleeping means it has not fired.
        #expect(fixture.clock.sleeperCount == 1, "not a millisecond early")
        #expect(try await !Self.loginIsLocked(fixture))
        fixture.clock.advance(by: .milliseconds(1))
        #expect(await Self.waitForLoginLock(fixture))
        #expect(
            fixture.recorder.drain() == [
                .lockChanged(.login, locked: true, view: .lockedOnly)
            ],
            "the events of a client's Lock")
        await #expect(throws: ServiceError.isLocked) { try await fixture.read(item) }
        #expect(fixture.logs.lines.contains { $0.contains("Collection locked") && $0.contains("reason=idle") })
        #expect(fixture.clock.sleeperCount == 0, "a locked collection has no timer")
    }

    /// What counts as using a collection.
    enum Use: CaseIterable, Sendable {
        case secret, secrets, setSecret, setLabel, createItem, deleteItem
    }

    static func perform(_ use: Use, on item: ItemID, in fixture: Fixture) async throws {
        let session = try await fixture.plainSession()
        switch use {
        case .secret: _ = try await fixture.read(item)
        case .secrets:
            #expect(
                try await fixture.service.secrets(for: [item], session: session, caller: Caller(Fixture.alice)).count
                    == 1)
        case .setSecret:
            try await fixture.service.setSecret(Fixture.plain([7], session: session), of: item, client: Fixture.alice)
        case .setLabel: try await fixture.service.setLabel("renamed", of: item)
        case .createItem: try await fixture.store(["other": "1"])
        case .deleteItem: try await fixture.service.deleteItem(item)
        }
    }

    @Test(arguments: Use.allCases)
    func aReadOrAWriteStartsTheIdleTimeAgain(_ use: Use) async throws {
        let (fixture, item) = try await Self.fixture(AutoLockSettings(idle: Self.idle, maximum: nil))
        #expect(await fixture.clock.waitForSleepers(1))
        fixture.clock.advance(by: Self.idle / 2)
        try await Self.perform(use, on: item, in: fixture)
        fixture.clock.advance(by: Self.idle / 2)
        // The timer woke at the first deadline; sleeping again means it found the collection used.
        #expect(await fixture.clock.waitForSleepers(1), "the timer waits for the later deadline")
        #expect(try await !Self.loginIsLocked(fixture))
        fixture.clock.advance(by: Self.idle / 2 - .milliseconds(1))
        #expect(fixture.clock.sleeperCount == 1)
        fixture.clock.advance(by: .milliseconds(1))
        #expect(await Self.waitForLoginLock(fixture))
    }

    @Test func theMaximumTimeLocksACollectionHoweverOftenItIsRead() async throws {
        let maximum = Duration.seconds(1800)
        let (fixture, item) = try await Self.fixture(AutoLockSettings(idle: Self.idle, maximum: maximum))
        let step = Duration.seconds(300)
        var elapsed = Duration.zero
        while elapsed + step < maximum {
            fixture.clock.advance(by: step)
            elapsed += step
            #expect(await fixture.clock.waitForSleepers(1))
            #expect(try await fixture.read(item) == "s3cret", "still unlocked after \(elapsed)")
        }
        fixture.clock.advance(by: maximum - elapsed - .milliseconds(1))
        #expect(fixture.clock.sleeperCount == 1)
        #expect(try await !Self.loginIsLocked(fixture))
        fixture.clock.advance(by: .milliseconds(1))
        #expect(await Self.waitForLoginLock(fixture))
        #expect(fixture.logs.lines.contains { $0.contains("reason=unlocked for the maximum time") })
    }

    @Test func zeroSecondsTurnALimitOff() async throws {
        #expect(AutoLockSettings(idleSeconds: 0, maximumSeconds: 0) == .never)
        #expect(
            AutoLockSettings(idleSeconds: 600, maximumSeconds: 0) == AutoLockSettings(idle: Self.idle, maximum: nil))
        let (neither, item) = try await Self.fixture(AutoLockSettings(idleSeconds: 0, maximumSeconds: 0))
        #expect(await neither.service.autoLockTimers == 0, "no timer at all")
        neither.clock.advance(by: .seconds(365 * 86_400))
        #expect(try await neither.read(item) == "s3cret")

        let (onlyMaximum, _) = try await Self.fixture(AutoLockSettings(idleSeconds: 0, maximumSeconds: 3600))
        // A zero idle time taken literally would be due at once, and the timer would never sleep.
        #expect(await onlyMaximum.clock.waitForSleepers(1))
        onlyMaximum.clock.advance(by: .seconds(3600) - .milliseconds(1))
        #expect(onlyMaximum.clock.sleeperCount == 1)
        #expect(try await !Self.loginIsLocked(onlyMaximum))
        onlyMaximum.clock.advance(by: .milliseconds(1))
        #expect(await Self.waitForLoginLock(onlyMaximum))
    }

    @Test func lockAllLocksWhatIsUnlockedAndLeavesLockedCollectionsAlone() async throws {
        let (fixture, item) = try await Self.fixture(AutoLockSettings(idle: Self.idle, maximum: nil))
        let work = try await fixture.service.createCollectionAtOnce(label: "Work", alias: nil, client: Fixture.alice)
        #expect(await fixture.clock.waitForSleepers(2))
        _ = await fixture.service.lock([Fixture.reference(work)], client: Fixture.alice)
        #expect(fixture.clock.sleeperCount == 1, "a client's Lock stops the collection's timer")
        _ = fixture.recorder.drain()

        #expect(await fixture.service.lockAll(reason: .signal) == [.login])
        #expect(
            fixture.recorder.drain() == [
                .lockChanged(.login, locked: true, view: .lockedOnly)
            ])
        #expect(fixture.clock.sleeperCount == 0)
        #expect(await fixture.service.lockAll(reason: .signal) == [])
        #expect(fixture.recorder.events.isEmpty, "locking again announces nothing")
        #expect(
            fixture.logs.lines.filter { $0.contains("Locked every collection") } == [
                "notice Locked every collection collections=1 reason=SIGUSR1",
                "notice Locked every collection collections=0 reason=SIGUSR1",
            ])
        #expect(try await fixture.service.collectionInfo(.session).isLocked == false, "session stays unlocked")
    }

    @Test(arguments: [true, false])
    func anAutomaticLockWaitsForAWriteUnderWay(byTimer: Bool) async throws {
        let (fixture, _) = try await Self.fixture(AutoLockSettings(idle: nil, maximum: Self.idle))
        let session = try await fixture.plainSession()
        #expect(await fixture.clock.waitForSleepers(1))
        await fixture.storage.holdNextWrite()
        let creation = Task {
            try await fixture.service.createItem(
                in: .login, label: "slow", attributes: ["slow": "1"], type: "",
                secret: Fixture.plain([1], session: session), replace: false, client: Fixture.alice)
        }
        await fixture.storage.waitUntilHolding()
        let locking = Task {
            if byTimer {
                fixture.clock.advance(by: Self.idle)
            } else {
                await fixture.service.lockAll(reason: .systemSleep)
            }
        }
        // Release only once the lock is queued behind the creation's write turn.
        #expect(await poll(limit: HangGuard.step) { await fixture.service.writersWaiting == 1 })
        #expect(try await !Self.loginIsLocked(fixture))
        await fixture.storage.releaseHeldWrite()
        let item = try await creation.value
        await locking.value
        #expect(await Self.waitForLoginLock(fixture))
        let events = fixture.recorder.drain()
        let created = try #require(events.firstIndex { $0 == .itemCreated(item) })
        let locked = try #require(events.firstIndex { $0 == .lockChanged(.login, locked: true, view: .lockedOnly) })
        #expect(created < locked)
    }

    @Test func anUnlockStartsTheClocksAgain() async throws {
        let fixture = try await Fixture.persistent(autoLock: AutoLockSettings(idle: nil, maximum: Self.idle))
        #expect(await fixture.clock.waitForSleepers(1))
        fixture.clock.advance(by: Self.idle / 2)
        try await fixture.service.lock([])
        #expect(fixture.clock.sleeperCount == 0)
        try await fixture.unlock(.login, "correct horse")
        #expect(await fixture.clock.waitForSleepers(1), "the unlock started a timer")
        fixture.clock.advance(by: Self.idle / 2)
        #expect(fixture.clock.sleeperCount == 1, "the maximum counts from the latest unlock")
        #expect(try await !Self.loginIsLocked(fixture))
        _ = fixture.recorder.drain()
        fixture.clock.advance(by: Self.idle / 2)
        #expect(await Self.waitForLoginLock(fixture))
    }

    @Test func anIdleHiddenCollectionClosesAndDisappearsAsOnLock() async throws {
        let fixture = try await Fixture.persistent(autoLock: AutoLockSettings(idle: Self.idle, maximum: nil))
        let stash = try await fixture.makeCollection("Stash", passcode: "hidden pass", isHidden: true)
        #expect(await fixture.clock.waitForSleepers(2))
        _ = fixture.recorder.drain()
        fixture.clock.advance(by: Self.idle / 2)
        try await fixture.store(["k": "v"], in: .login)
        fixture.clock.advance(by: Self.idle / 2)
        #expect(await fixture.recorder.waitFor { $0 == .collectionDeleted(stash) } != nil)
        #expect(await !fixture.service.collections.contains(stash))
        #expect(await fixture.clock.waitForSleepers(1), "login was used since, so it waits on")
        #expect(try await !Self.loginIsLocked(fixture))
    }
}
