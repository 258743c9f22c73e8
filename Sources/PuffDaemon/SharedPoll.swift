// SPDX-License-Identifier: Apache-2.0
import PuffService
import ServiceLifecycle

/// Pulls every fleet collection each `poll_interval` (docs/design/fleet.md §0), so a change made
/// on another machine reaches this one's clients within about that time; while a shared store
/// cannot be reached, it waits twice as long each time, up to ``longest``, and goes back to the
/// interval once a pull reaches it again.
struct SharedPoll: Service, CustomStringConvertible {
    /// Pulls every shared collection; says whether every store answered
    /// (``SecretService/pullAllShared()``).
    let pull: @Sendable () async -> Bool
    /// The time between two pulls while the stores answer.
    let interval: Duration
    /// The longest time between two pulls while one does not.
    let longest: Duration
    let clock: any Clock<Duration>

    var description: String { "SharedPoll" }

    /// The longest wait while offline (docs/design/fleet.md §0: at most 5 s).
    static let defaultLongest: Duration = .seconds(5)

    /// A poll of `service`, once its vault is loaded.
    init(
        service: SecretService, interval: Duration, longest: Duration = defaultLongest,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            interval: interval, longest: longest, clock: clock,
            pull: { await service.vaultReady() ? await service.pullAllShared() : true })
    }

    /// A poll calling `pull` (tests count the calls).
    init(
        interval: Duration, longest: Duration = defaultLongest, clock: any Clock<Duration>,
        pull: @escaping @Sendable () async -> Bool
    ) {
        self.pull = pull
        self.interval = interval
        self.longest = max(longest, interval)
        self.clock = clock
    }

    /// The wait after one of `wait` whose pull `reached` every store or not.
    func wait(after wait: Duration, reached: Bool) -> Duration {
        reached ? interval : min(wait * 2, longest)
    }

    func run() async {
        var wait = interval
        while true {
            let (clock, next) = (clock, wait)
            do {
                try await cancelWhenGracefulShutdown { try await Self.sleep(on: clock, for: next) }
            } catch {
                return  // the daemon stops
            }
            wait = self.wait(after: wait, reached: await pull())
        }
    }

    private static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
