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
///
/// A long list leaves megabytes of freed blocks behind (its paths, then libdbus's copy), which
/// glibc keeps. After a flush whose lists held ``trimLength`` entries or more, once the bus has let
/// go of every copy, the coalescer hands them back to the system (design core-reshaped §5).
public final class ListSignalCoalescer: Sendable {
    /// Which list changed.
    public enum Key: Hashable, Sendable {
        /// The service's `Collections`.
        case collections
        /// A collection's `Items` (and `Modified`).
        case items(CollectionID)
    }

    /// A list's signal, and how many entries the list holds.
    public struct Signal: Sendable {
        public var message: OutgoingMessage
        public var length: Int

        public init(_ message: OutgoingMessage, length: Int) {
            self.message = message
            self.length = length
        }
    }

    private struct State: ~Copyable {
        var dirty: [Key] = []
        var scheduled = false
        var window: Duration
    }

    /// The fewest entries a flush's lists must hold for a trim after it. Measured in a release
    /// puffd during a fill (docs/benchmarks.md, issue 27): a trim costs 30–50 µs on a small heap,
    /// 0.2 ms at 10,000 items and 0.7 ms at 100,000, where it gives back about 10 MiB; below
    /// 10,000 a list frees too little to be worth a trim after each of its flushes.
    public static let trimLength = 10_000

    private let minimumWindow: Duration
    private let maximumWindow: Duration
    private let clock: any Clock<Duration>
    private let trimLength: Int
    private let trim: @Sendable () -> Void
    private let render: @Sendable (Key) async -> Signal?
    private let send: @Sendable (OutgoingMessage, _ released: @escaping @Sendable () -> Void) -> Void
    private let state: Mutex<State>

    /// Creates a coalescer.
    ///
    /// - Parameters:
    ///   - trimLength: The entries a flush must send for `trim` to run after it.
    ///   - trim: Gives freed memory back to the system; nil: glibc's `malloc_trim`.
    ///   - render: Builds the signal for a key from the current state; nil when the object is gone.
    ///   - send: Queues a signal on the bus and calls `released` once no copy of it is left
    ///     (``BusConnection/send(_:released:)``).
    public init(
        minimumWindow: Duration = .milliseconds(50),
        maximumWindow: Duration = .seconds(2),
        clock: any Clock<Duration> = ContinuousClock(),
        trimLength: Int = ListSignalCoalescer.trimLength,
        trim: (@Sendable () -> Void)? = nil,
        render: @escaping @Sendable (Key) async -> Signal?,
        send: @escaping @Sendable (OutgoingMessage, _ released: @escaping @Sendable () -> Void) -> Void
    ) {
        self.minimumWindow = minimumWindow
        self.maximumWindow = maximumWindow
        self.clock = clock
        self.trimLength = trimLength
        self.trim = trim ?? { MemoryTrim.trim() }
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

    /// Sends one signal per list that changed since the last flush, with its current value; then,
    /// if the lists were long, waits for the bus to let go of them and trims.
    private func flush() async {
        let keys = state.withLock { state -> [Key] in
            state.scheduled = false
            defer { state.dirty.removeAll() }
            return state.dirty
        }
        let (released, release) = AsyncStream<Void>.makeStream()
        var queued = 0
        var length = 0
        let started = ContinuousClock.now
        for key in keys {
            guard let sent = await queue(key, released: { release.yield() }) else { continue }
            queued += 1
            length += sent
        }
        let cost = ContinuousClock.now - started
        state.withLock { $0.window = min(max(minimumWindow, cost * 10), maximumWindow) }
        guard length >= trimLength else { return }
        for await _ in released {
            queued -= 1
            if queued == 0 { break }
        }
        trim()
    }

    /// Renders `key`'s signal and queues it; returns the list's length, nil when the object is
    /// gone. A function of its own so that no copy of the message outlives the call.
    private func queue(_ key: Key, released: @escaping @Sendable () -> Void) async -> Int? {
        guard let signal = await render(key) else { return nil }
        send(signal.message, released)
        return signal.length
    }

    private static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
