// SPDX-License-Identifier: Apache-2.0

/// The service's clock read as time since the service started, so per-collection deadlines are
/// stored as plain durations rather than in the injected clock's own instant type.
struct Timeline: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Measures from `clock`'s present instant.
    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) }
    }

    /// Time since the start.
    var now: Duration { elapsed() }

    /// Sleeps until `offset` after the start; throws `CancellationError` when cancelled.
    func sleep(until offset: Duration) async throws {
        try await sleeper(offset)
    }
}
