// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// `puffd` locks on logind's signals: a fake `org.freedesktop.login1` owns its name on a second
/// private bus, passed to `puffd` as `--system-bus-address`, and emits `PrepareForSleep`,
/// `Session.Lock` and `SessionRemoved` as logind would, and lets sessions turn `closing` silently.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LogindLockTests {
    static let me = getuid()
    static let ours = FakeLogind.Session(id: "2", userID: me)
    static let ourSecond = FakeLogind.Session(id: "c5", userID: me)
    static let theirs = FakeLogind.Session(id: "7", userID: me + 1)

    let flow = AutoLockFlowTests()

    func daemon(systemBus: TestBus, _ arguments: [String] = []) async throws -> TestDaemon {
        let puffd = try await flow.daemon(["--system-bus-address", systemBus.address] + arguments)
        #expect(try await flow.puffctl(puffd, ["init", "--stdin"], input: AutoLockFlowTests.passcode).status == 0)
        return puffd
    }

    @Test func sessionLockAndSleepLockOnlyForThisUserAndOnlyFromLogind() async throws {
        let systemBus = try TestBus()
        let logind = try await FakeLogind.start(on: systemBus, sessions: [Self.ours, Self.theirs])
        let puffd = try await daemon(systemBus: systemBus)
        #expect(await logind.waitForListCalls(1), "puffd asked for the sessions once its matches were in place")

        logind.lock(Self.theirs)
        #expect(await flow.logged(puffd, "Ignored the Lock of another user's session"))
        #expect(try await !flow.loginLocked(puffd))

        // A signal sent straight to puffd by someone who is not logind.
        let impostor = try await BusConnection.connect(address: systemBus.address)
        defer { impostor.close() }
        impostor.send(
            .signal(
                path: Self.ours.path, interface: "org.freedesktop.login1.Session", member: "Lock",
                destination: logind.lastCaller))
        #expect(
            await flow.logged(
                puffd, "member=Lock sender=\(impostor.uniqueName) [PuffDaemon] Ignored a signal not sent by logind"))
        #expect(try await !flow.loginLocked(puffd))

        logind.lock(Self.ours)
        #expect(await flow.logged(puffd, "reason=session locked"))
        #expect(try await flow.loginLocked(puffd))

        try await flow.unlock(puffd)
        logind.prepareForSleep(false)
        #expect(await flow.logged(puffd, "The system woke up"))
        #expect(try await !flow.loginLocked(puffd))
        logind.prepareForSleep(true)
        #expect(await flow.logged(puffd, "reason=system going to sleep"))
        #expect(try await flow.loginLocked(puffd))
    }

    @Test func theEndOfThisUsersLastSessionLocks() async throws {
        let systemBus = try TestBus()
        let logind = try await FakeLogind.start(on: systemBus, sessions: [Self.ours, Self.theirs])
        let puffd = try await daemon(systemBus: systemBus)
        #expect(await logind.waitForListCalls(1))

        logind.add(Self.ourSecond)
        #expect(await logind.waitForListCalls(2), "a new session is looked up")
        logind.remove(Self.theirs)
        #expect(await flow.logged(puffd, "Another user's session ended"))
        logind.remove(Self.ours)
        #expect(await flow.logged(puffd, "A session of this user ended"))
        #expect(try await !flow.loginLocked(puffd), "another session of this user remains")
        logind.remove(Self.ourSecond)
        #expect(await flow.logged(puffd, "reason=last session ended"))
        #expect(try await flow.loginLocked(puffd))
    }

    /// Debian's `KillUserProcesses=no`: after a logout the session stays listed, `closing`, while a
    /// process of it lives (a puffd the PAM module started, in that session), and logind signals
    /// nothing. A closing session counts as ended: the last live one going locks, whoever started
    /// puffd; one live session left does not (issue 24, item 28).
    @Test func aSessionLeftClosingCountsAsEndedSoTheLastLiveOneClosingLocks() async throws {
        let systemBus = try TestBus()
        let logind = try await FakeLogind.start(on: systemBus, sessions: [Self.ours, Self.ourSecond, Self.theirs])
        let puffd = try await daemon(systemBus: systemBus, ["--session-check-milliseconds", "50"])
        #expect(await logind.waitForListCalls(1))
        logind.setState(of: Self.theirs, to: "closing")
        logind.setState(of: Self.ours, to: "closing")
        let generous = Duration.seconds(60)
        #expect(
            await poll(limit: generous) { puffd.log.contains("A session of this user ended") },
            "the closing session was noticed with no signal from logind")
        // Hold point: two more looks at the sessions, so at least one began after the change.
        let seen = logind.listCalls
        #expect(await logind.waitForListCalls(seen + 2, limit: generous))
        #expect(try await !flow.loginLocked(puffd), "a live session of this user remains")
        #expect(!puffd.log.contains("reason=last session ended"))
        logind.setState(of: Self.ourSecond, to: "closing")
        #expect(await poll(limit: generous) { puffd.log.contains("reason=last session ended") }, "\(puffd.log)")
        #expect(try await flow.loginLocked(puffd))
    }

    @Test func logindMissingIsOneLogLineAndLogindStartingLaterIsNoticed() async throws {
        let systemBus = try TestBus()
        let puffd = try await daemon(systemBus: systemBus)
        #expect(await flow.logged(puffd, "logind is not running"))
        let logind = try await FakeLogind.start(on: systemBus, sessions: [Self.ours])
        #expect(await logind.waitForListCalls(1), "puffd noticed logind start")
        logind.prepareForSleep(true)
        #expect(await flow.logged(puffd, "reason=system going to sleep"))
        #expect(try await flow.loginLocked(puffd))
        #expect(puffd.log.components(separatedBy: "logind is not running").count == 2, "said once")
    }
}
