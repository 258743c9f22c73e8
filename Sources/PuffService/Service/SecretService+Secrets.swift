// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension SecretService {
    /// An item's secret, encoded for `session` with a fresh IV (secret-service.md §6.8).
    ///
    /// - Throws: ``ServiceError/noSession`` (checked first), ``ServiceError/noSuchObject``,
    ///   ``ServiceError/isLocked``.
    public func secret(of id: ItemID, session sessionID: SessionID, client: ClientID) throws(ServiceError)
        -> TransportSecret
    {
        let session = try session(sessionID, client: client)
        let record = try record(of: id)
        guard collectionStates[id.collection]?.isLocked == false else { throw .isLocked }
        return try encode(record, session: session, id: sessionID)
    }

    /// The secrets of several items, in the order asked (secret-service.md §6.7).
    ///
    /// Unknown and locked items are left out silently.
    ///
    /// - Throws: ``ServiceError/noSession``, checked first, even for an empty list.
    public func secrets(
        for ids: [ItemID], session sessionID: SessionID, client: ClientID
    ) throws(ServiceError) -> [(ItemID, TransportSecret)] {
        let session = try session(sessionID, client: client)
        var result: [(ItemID, TransportSecret)] = []
        for id in ids {
            guard collectionStates[id.collection]?.isLocked == false,
                let record = collectionStates[id.collection]?.items[id.number]
            else { continue }
            result.append((id, try encode(record, session: session, id: sessionID)))
        }
        return result
    }

    /// Replaces an item's secret and content type. Emits `itemChanged(modified)` (§6.8 REC).
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``, ``ServiceError/noSession``,
    ///   ``ServiceError/invalidArgument(_:)``, ``ServiceError/failed(_:)``.
    public func setSecret(_ secret: TransportSecret, of id: ItemID, client: ClientID) async throws(ServiceError) {
        _ = try record(of: id)
        guard collectionStates[id.collection]?.isLocked == false else { throw .isLocked }
        let plaintext = try decode(secret, client: client)
        try await updateItem(id) { record in
            record.secret = plaintext
            record.contentType = secret.contentType
            return []
        }
    }
}
