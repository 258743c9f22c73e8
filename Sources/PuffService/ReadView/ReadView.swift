// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore
import PuffSystem
package import Synchronization

/// What reads answered on the bus thread need, published by the ``SecretService`` actor (design
/// core-reshaped §7): whether the vault is ready, each collection's items, item settings and (while
/// it is open) the key that opens them, and the sessions' owners and transport keys.
///
/// The actor alone writes this state, each piece under its lock, in short sections with no
/// `await` inside; the bus thread reads it under the same locks. `Lock` takes a collection's key
/// out before wiping it, and a read opens an item while it holds that collection's lock, so the
/// bus thread never holds a wiped key. A read here either answers exactly as the actor would or
/// answers nothing (``secrets(of:session:caller:)`` returns nil) and the call goes to its lane.
///
/// What such a read changes in the service (the audit entry, the session's and the collection's
/// last use) waits in a queue the actor empties (``SecretService/flushFastReads()``) before
/// anything that depends on it: a lock, an audit query, the auto-lock deadline, a stop.
public final class ReadView: Sendable {
    /// The most items one call may read here; longer batches go to the lane.
    public static let batchLimit = 100

    /// One read answered here, for the actor to record.
    struct Read: Sendable {
        let id: ItemID
        let session: SessionID
        let caller: Caller
        let label: String
        let time: UInt64
    }

    private let ready = Atomic<Bool>(false)
    /// Whether items without settings need nobody's decision (`[access] mode = "open"`).
    private let plainAccess: Bool
    typealias Shared = SharedState<CollectionVault.ReadableCollection>
    /// Every collection by id, and those searched in search order (``SecretService/collectionOrder``).
    let collections = Mutex<(byID: [CollectionID: Shared], order: [(CollectionID, Shared)])>(([:], []))
    /// The service's sessions (``SecretService/sessions``).
    let sessions = SharedState(SessionTable())
    private let reads = Mutex<[Read]>([])
    private let now: @Sendable () -> UInt64
    private let kick: AsyncStream<Void>.Continuation
    /// Yields when the first read waits in an empty queue.
    let kicks: AsyncStream<Void>
    /// Whether reads wait for an explicit ``SecretService/flushFastReads()`` (tests of what
    /// flushes them); normally a task flushes them as soon as they wait.
    package let flushesHeld = Atomic<Bool>(false)

    /// The most pairs a search may name (``ServiceLimits/attributesPerItem``).
    let queryLimit: Int

    init(plainAccess: Bool, queryLimit: Int, now: @escaping @Sendable () -> UInt64) {
        self.plainAccess = plainAccess
        self.queryLimit = queryLimit
        self.now = now
        let (kicks, kick) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.kicks = kicks
        self.kick = kick
    }

    deinit { kick.finish() }

    /// The secrets of `ids`, in order, opened and encoded for `session` on the calling thread,
    /// and noted for the audit log; nil, with nothing noted, unless every one can be read here:
    /// the vault is ready, the session is `caller`'s, each item exists in an open collection and
    /// needs nobody's decision (no settings, access mode `open`), and there are at most
    /// ``batchLimit``. A sandboxed caller is always answered by the service, which keeps portal
    /// keys from it (``SecretService/portalSchema``).
    public func secrets(of ids: [ItemID], session: SessionID, caller: Caller) -> [TransportSecret]? {
        guard isReady, plainAccess, caller.sandbox == .host, ids.count <= Self.batchLimit,
            let transport = sessions.read({ $0.transport(of: session, for: caller.client) })
        else { return nil }
        var opened: [ItemKey.Opened] = []
        opened.reserveCapacity(ids.count)
        for id in ids {
            guard let collection = collections.withLock({ $0.byID[id.collection] }),
                let item = collection.read({ Self.open(id, in: $0) })
            else { return nil }
            opened.append(item)
        }
        var secrets: [TransportSecret] = []
        secrets.reserveCapacity(ids.count)
        for item in opened {
            let contentType = SecretService.outgoingContentType(item.contentType)
            guard let secret = try? transport.encode(item.secret, contentType: contentType, session: session) else {
                return nil
            }
            secrets.append(secret)
        }
        let time = now()
        let wasEmpty = reads.withLock { reads in
            let wasEmpty = reads.isEmpty
            for (id, item) in zip(ids, opened) {
                reads.append(Read(id: id, session: session, caller: caller, label: item.label, time: time))
            }
            return wasEmpty
        }
        if wasEmpty { kick.yield() }
        return secrets
    }

    /// Opens item `id` of `collection` when a read may: the collection is open and the item has
    /// no settings. Runs under the collection's lock, so its key cannot be wiped meanwhile.
    private static func open(_ id: ItemID, in collection: CollectionVault.ReadableCollection) -> ItemKey.Opened? {
        guard let key = collection.key, let item = collection.items[id.number],
            collection.settings[id.number]?.isEmpty ?? true
        else { return nil }
        return try? key.open(item, id)
    }

    /// Whether the vault is loaded (``SecretService/vaultReady()``).
    var isReady: Bool { ready.load(ordering: .acquiring) }

    /// Reads may be answered from now on (``SecretService/becomeReady()``).
    func markReady() { ready.store(true, ordering: .releasing) }

    /// Publishes which collections exist, and which are searched in which order.
    func publish(_ byID: [CollectionID: Shared], order: [(CollectionID, Shared)]) {
        collections.withLock { $0 = (byID, order) }
    }

    /// How many reads wait for the actor.
    package var waitingReads: Int { reads.withLock { $0.count } }

    /// The reads answered since the last call, oldest first.
    func takeReads() -> [Read] {
        reads.withLock { reads in
            defer { reads = [] }
            return reads
        }
    }
}

extension Session.Transport {
    /// `secret` encoded for the session `id` this transport belongs to, with a fresh IV.
    func encode(_ secret: SecureBytes, contentType: String, session id: SessionID) throws(CryptoError)
        -> TransportSecret
    {
        switch self {
        case .plain:
            return TransportSecret(session: id, parameters: [], value: secret, contentType: contentType)
        case .dh(let key):
            let sealed = try DHTransport.encrypt(secret, key: key)
            return TransportSecret(
                session: id, parameters: sealed.iv, value: SecureBytes(unwipedCopyOf: sealed.ciphertext),
                contentType: contentType)
        }
    }
}
