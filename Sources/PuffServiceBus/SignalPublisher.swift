// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService
import Synchronization

/// Turns ``ServiceEvent``s into signals on a connection: the per-event signals at once, in the
/// order the service emits them (so they leave before the reply of the call that caused them), the
/// list properties through a ``ListSignalCoalescer``, and a lock change's item signals only to the
/// connections that read those items' properties (``PropertyReaders``, ``SignalOutbox``).
///
/// Created before the service (whose event sink it is) and attached to it afterwards, since the
/// coalesced lists are read from the service when they go out.
public final class SignalPublisher: Sendable {
    private let connection: BusConnection
    private let service = ServiceSlot()
    private let coalescer: ListSignalCoalescer
    private let outbox: SignalOutbox
    /// Which connections read which items' properties; the Item interface notes each read.
    public let readers = PropertyReaders()
    /// The paths callers spelled in `Unlock`, echoed when its prompt completes.
    public let spellings = PromptSpellings()

    /// A publisher on `connection`; `clock` times the coalescing window.
    public init(connection: BusConnection, clock: any Clock<Duration> = ContinuousClock()) {
        self.connection = connection
        let service = self.service
        coalescer = ListSignalCoalescer(
            clock: clock,
            render: { key in
                guard let source = service.value.withLock({ $0 }) else { return nil }
                return await Self.render(key, from: source)
            },
            send: { connection.send($0, released: $1) })
        outbox = SignalOutbox(send: { connection.send($0) })
    }

    /// The sink to hand to ``SecretService``.
    public var sink: @Sendable (ServiceEvent) -> Void {
        { [self] event in publish(event) }
    }

    /// Reads coalesced lists from `service` from now on.
    public func attach(_ service: SecretService) {
        self.service.value.withLock { $0 = service }
    }

    private func publish(_ event: ServiceEvent) {
        if case .lockChanged(let id, let locked, let view) = event {
            let items = SignalEmitter.lockedItemsChanged(
                in: id, locked: locked, view: view, readers: readers.lockChanged(id, locked: locked))
            outbox.deliver(items, then: SignalEmitter.messages(for: event))
        } else {
            // Emitted while a call runs (a write settling): they leave with its reply.
            for message in SignalEmitter.messages(for: event, spellings: spellings) { connection.sendSoon(message) }
        }
        switch event {
        case .collectionCreated(let id), .collectionDeleted(let id):
            readers.collectionGone(id)
            coalescer.touch(.collections)
        case .itemCreated(let id), .itemDeleted(let id): coalescer.touch(.items(id.collection))
        case .lockChanged(let id, _, _):
            // A private collection's items go on Lock and come back on unlock (architecture.md
            // Part A item 3), with no item event; its `Items` list goes out like any other.
            coalescer.touch(.items(id))
        case .promptCompleted(let id, _, _, _): spellings.forget(id)
        case .collectionChanged, .itemChanged: break
        }
    }

    static func render(
        _ key: ListSignalCoalescer.Key, from service: SecretService
    ) async -> ListSignalCoalescer.Signal? {
        switch key {
        case .collections:
            let collections = await service.collections
            return .init(SignalEmitter.collectionsChanged(collections), length: collections.count)
        case .items(let collection):
            guard let info = try? await service.collectionInfo(collection) else { return nil }
            let items = await service.itemIDs(in: collection)
            return .init(
                SignalEmitter.itemsChanged(in: collection, items: items, modified: info.modified), length: items.count)
        }
    }
}

/// The service a publisher reads lists from, set once it exists.
private final class ServiceSlot: Sendable {
    let value = Mutex<SecretService?>(nil)
}
