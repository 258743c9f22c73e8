// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService
import Synchronization

/// Sends `PropertiesChanged{Collections}` and `PropertiesChanged{Items}` at most once per short
/// window per object, after the `CollectionCreated`/`ItemCreated` signals that caused them
/// (secret-service.md §7, "Cost at large N").
///
/// A long-lived libsecret client rebuilds its item list from the `Items` value its proxy caches, so
/// the list must keep arriving; sending it after every write would make each write cost as much as
/// the list is long. The window grows with what one flush costs (ten times its measured time,
/// capped), so at 100,000 items the list goes out a few times a second and a write stays cheap.
public final class ListSignalCoalescer: Sendable {
    /// Which list changed.
    public enum Key: Hashable, Sendable {
        /// The service's `Collections`.
        case collections
        /// A collection's `Items` (and `Modified`).
        case items(CollectionID)
    }

    private struct State: ~Copyable {
        var dirty: [Key] = []
        var scheduled = false
        var window: Duration
    }

    private let minimumWindow: Duration
    private let maximumWindow: Duration
    private let clock: any Clock<Duration>
    private let render: @Sendable (Key) async -> OutgoingMessage?
    private let send: @Sendable (OutgoingMessage) -> Void
    private let state: Mutex<State>

    /// Creates a coalescer.
    ///
    /// - Parameters:
    ///   - render: Builds the signal for a key from the current state; nil when the object is gone.
    ///   - send: Queues a signal on the bus.
    public init(
        minimumWindow: Duration = .milliseconds(50),
        maximumWindow: Duration = .seconds(2),
        clock: any Clock<Duration> = ContinuousClock(),
        render: @escaping @Sendable (Key) async -> OutgoingMessage?,
        send: @escaping @Sendable (OutgoingMessage) -> Void
    ) {
        self.minimumWindow = minimumWindow
        self.maximumWindow = maximumWindow
        self.clock = clock
        self.render = render
        self.send = send
        state = Mutex(State(window: minimumWindow))
    }

    /// Notes that the list under `key` changed; its signal goes out when the current window ends.
    public func touch(_ key: Key) {
        let window = state.withLock { state -> Duration? in
            if !state.dirty.contains(key) { state.dirty.append(key) }
            guard !state.scheduled else { return nil }
            state.scheduled = true
            return state.window
        }
        guard let window else { return }
        Task { [self] in
            try? await Self.sleep(on: clock, for: window)
            await flush()
        }
    }

    /// Sends one signal per list that changed since the last flush, with its current value.
    private func flush() async {
        let keys = state.withLock { state -> [Key] in
            state.scheduled = false
            defer { state.dirty.removeAll() }
            return state.dirty
        }
        let started = ContinuousClock.now
        for key in keys {
            if let message = await render(key) { send(message) }
        }
        let cost = ContinuousClock.now - started
        state.withLock { $0.window = min(max(minimumWindow, cost * 10), maximumWindow) }
        // A long list leaves megabytes of freed buffers behind; hand them back to the system
        // rather than let them raise the daemon's resident size until the next flush reuses them.
        if cost > .milliseconds(5) { _ = glibcMallocTrim(0) }
    }

    private static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}

/// glibc's `malloc_trim` (malloc.h), which Swift's Glibc module does not export.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
