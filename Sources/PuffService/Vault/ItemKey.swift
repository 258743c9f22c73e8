// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// What opens the items of an unlocked collection: its record key, the space its records are
/// bound to, its journal's format and the store its records are read from by their locators. ``open(_:_:)`` is the one function every secret read goes
/// through, on the actor and on the bus thread (``ReadView``).
struct ItemKey: Sendable {
    let sealer: SecretSealer
    let space: SpaceID?
    let format: UInt8
    let records: (any RecordStore)?

    /// An item's secret, with the label and content type its record holds.
    struct Opened {
        let secret: SecureBytes
        let label: String
        let contentType: String
    }

    /// Why an item's secret did not open.
    enum Failure: Error {
        /// A secret sealed on its own (an item of the `session` collection) did not open.
        case sealedApart
        /// The item's journal record could not be read, or did not parse or authenticate (the
        /// collection is damaged).
        case record(any Error)
    }

    /// Opens `item`'s secret: from its record (the only sealed form of a stored item), else from
    /// the secret sealed on its own.
    func open(_ item: StoredItem, _ id: ItemID) throws(Failure) -> Opened {
        guard item.sealedSecret.isEmpty, !item.record.isNone, let space else {
            do {
                let secret = try sealer.open(item.sealedSecret, associatedData: SecretService.sealingContext(id))
                return Opened(secret: secret, label: item.label, contentType: item.contentType)
            } catch {
                throw .sealedApart
            }
        }
        do {
            let plaintext = try CollectionVault.openRecord(
                of: item, space: space, sealer: sealer, format: format, from: records)
            let (fields, secret) = try ItemFields.parse(plaintext, wantsSecret: true, attributes: false)
            guard let secret else { throw CryptoError.wrongKey }
            return Opened(secret: secret, label: fields.label, contentType: fields.contentType)
        } catch {
            throw .record(error)
        }
    }
}
