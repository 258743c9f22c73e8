// SPDX-License-Identifier: Apache-2.0
public import PuffService
import Synchronization

/// Collects the ``ServiceEvent``s a ``SecretService`` emits; pass ``sink`` as its `events` argument.
public final class EventRecorder: Sendable {
    private let storage = Mutex<[ServiceEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// The closure to hand to ``SecretService``.
    public var sink: @Sendable (ServiceEvent) -> Void {
        { [self] event in self.storage.withLock { $0.append(event) } }
    }

    /// Every event so far, in order.
    public var events: [ServiceEvent] { storage.withLock { $0 } }

    /// Returns the events so far and forgets them.
    public func drain() -> [ServiceEvent] {
        storage.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    /// Waits (in real time, polling) for an event that satisfies `predicate`.
    ///
    /// The limit only bounds a failing test: a passing one returns as soon as the event arrives,
    /// so it is generous (a loaded two-core CI machine took over 5 s for a prompt to complete).
    ///
    /// - Returns: The first such event, or nil when none arrived within `limit`.
    public func waitFor(
        limit: Duration = HangGuard.step, _ predicate: @escaping @Sendable (ServiceEvent) -> Bool
    ) async -> ServiceEvent? {
        _ = await poll(limit: limit) { self.events.contains(where: predicate) }
        return events.first(where: predicate)
    }

    /// The `promptCompleted` events so far.
    public var completions: [ServiceEvent] {
        events.filter { if case .promptCompleted = $0 { true } else { false } }
    }
}

extension ServiceEvent {
    /// The view of a `lockChanged` event; nil for any other event.
    public var lockView: LockView? {
        if case .lockChanged(_, _, let view) = self { view } else { nil }
    }
}
