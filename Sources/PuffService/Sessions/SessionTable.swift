// SPDX-License-Identifier: Apache-2.0

/// The open transfer sessions (secret-service.md §5): whose each is, how recently it carried a
/// secret, and the limits on how many there may be. A value the service owns; no I/O, no keys made.
struct SessionTable: Sendable {
    private var sessions: [SessionID: Session] = [:]
    /// Open sessions per client, for ``ServiceLimits/sessionsPerClient``; a client at zero has no entry.
    private var counts: [ClientID: Int] = [:]
    /// Counts opens and uses, so each session knows how recently it was used.
    private var uses: UInt64 = 0
    private var nextNumber: UInt64 = 1

    /// How many sessions are open.
    var count: Int { sessions.count }

    /// Whether `id` is open.
    func contains(_ id: SessionID) -> Bool {
        sessions[id] != nil
    }

    /// Makes room for one more session of `client`, before any key agreement is computed.
    ///
    /// A client at its own limit loses its least recently used session instead of being refused:
    /// python-secretstorage opens one session per `Item` object and never closes them, so reading
    /// the secrets of more items than the limit on one connection must keep working.
    ///
    /// - Returns: The session closed to make room, if any.
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when the service holds ``ServiceLimits/sessions``.
    mutating func makeRoom(for client: ClientID, limits: ServiceLimits) throws(ServiceError) -> SessionID? {
        var closed: SessionID?
        if counts[client, default: 0] >= limits.sessionsPerClient {
            // A scan of at most `limits.sessions` entries, only when a client is at its limit.
            closed = sessions.filter { $0.value.owner == client }.min { $0.value.lastUse < $1.value.lastUse }?.key
            if let closed { remove(closed) }
        }
        guard sessions.count < limits.sessions else {
            throw .limitExceeded("at most \(limits.sessions) sessions may be open at once")
        }
        return closed
    }

    /// Opens a session of `client` carrying secrets by `transport`.
    mutating func open(_ transport: Session.Transport, for client: ClientID) -> SessionID {
        let id = SessionID("s\(nextNumber)")
        nextNumber += 1
        uses += 1
        sessions[id] = Session(owner: client, transport: transport, lastUse: uses)
        counts[client, default: 0] += 1
        return id
    }

    /// Closes `id`, dropping its key.
    ///
    /// - Throws: ``ServiceError/noSession`` when unknown; ``ServiceError/accessDenied`` when another
    ///   client owns it (secret-service.md §5.4).
    mutating func close(_ id: SessionID, client: ClientID) throws(ServiceError) {
        guard let session = sessions[id] else { throw .noSession }
        guard session.owner == client else { throw .accessDenied }
        remove(id)
    }

    /// The session `id` if `client` owns it, marked as just used; another client's session is as
    /// good as absent.
    mutating func use(_ id: SessionID, client: ClientID) throws(ServiceError) -> Session {
        guard var session = sessions[id], session.owner == client else { throw .noSession }
        uses += 1
        session.lastUse = uses
        sessions[id] = session
        return session
    }

    /// The transport of session `id` if `client` owns it, not marked as used: a read on the bus
    /// thread (``ReadView``), whose use the actor notes later.
    func transport(of id: SessionID, for client: ClientID) -> Session.Transport? {
        guard let session = sessions[id], session.owner == client else { return nil }
        return session.transport
    }

    /// Closes every session of `client`, which left the bus.
    mutating func forget(_ client: ClientID) {
        guard counts.removeValue(forKey: client) != nil else { return }
        sessions = sessions.filter { $0.value.owner != client }
    }

    private mutating func remove(_ id: SessionID) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        counts.decrement(session.owner)
    }
}

extension Dictionary where Key == ClientID, Value == Int {
    /// Counts one fewer for `client`, dropping the entry at zero so departed clients leave nothing.
    mutating func decrement(_ client: ClientID) {
        guard let count = self[client] else { return }
        self[client] = count > 1 ? count - 1 : nil
    }
}
