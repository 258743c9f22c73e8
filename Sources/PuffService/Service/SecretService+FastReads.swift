// SPDX-License-Identifier: Apache-2.0
import Synchronization

extension SecretService {
    /// Records what reads answered on the bus thread did (``ReadView``): each one's audit entry,
    /// with the time it was read, and its session's and collection's last use (for the session
    /// limit and the idle auto-lock). Runs soon after each read, and before anything that
    /// depends on them: a lock (the audit key goes), an audit query, an auto-lock deadline, a stop.
    public func flushFastReads() {
        let reads = readView.takeReads()
        guard !reads.isEmpty else { return }
        for read in reads {
            _ = try? sessions.use(read.session, client: read.caller.client)
            if let vault = collectionStates[read.id.collection] { noteUse(vault) }
            audit(
                .read, of: read.id, label: read.label, caller: read.caller, result: .allowed, deferred: true,
                at: read.time)
        }
        auditLog?.flush()
    }

    /// Tells the ``ReadView`` which collections exist and the search order.
    func publishCollections() {
        readView.publish(
            collectionStates.mapValues(\.readable),
            order: collectionOrder.compactMap { id in collectionStates[id].map { (id, $0.readable) } })
    }

    /// How long reads wait to be recorded together: a client reading in a loop costs the actor
    /// one flush per this time, not one per read. Each flush wakes two threads (the kick, then
    /// the timer): at 5 ms that was as much of puffd's time in a GetSecret loop as the flush's own
    /// work, and it slowed the bus thread's wake-ups of the bus daemon (issue 27 item 6).
    static let fastReadBatching = Duration.milliseconds(20)

    /// Starts the task that runs ``flushFastReads()`` when reads wait; it ends with the service.
    nonisolated static func flushReads(of view: ReadView, into service: SecretService) {
        let reads = view.kicks
        Task.detached { [weak service, weak view] in
            for await _ in reads {
                try? await Task.sleep(for: fastReadBatching)
                guard view?.flushesHeld.load(ordering: .relaxed) == false else { continue }
                await service?.flushFastReads()
            }
        }
    }

    /// Runs `body` inside the next ``CollectionVault/lock()`` of `collection`, after the key left
    /// the ``ReadView`` and before it is wiped (race tests' hold point).
    package func holdNextLock(of collection: CollectionID, _ body: @escaping @Sendable () -> Void) {
        guard let vault = collectionStates[collection] else { return }
        vault.afterUnpublishing = { [weak vault] in
            vault?.afterUnpublishing = nil
            body()
        }
    }
}
