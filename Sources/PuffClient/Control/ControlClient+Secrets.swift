// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffDBus

/// The Secret Service calls puffctl makes as an ordinary client would (secret-service.md §3), on
/// the connection and bus name of the control calls: `get` and `copy` read a secret the way
/// libsecret does, through the same checks, encrypted on the bus.
extension ControlClient: ItemDirectory {
    static let itemInterface = SecretInterfaces.item

    /// `Service.SearchItems`: the paths of the items whose attributes include every pair of
    /// `attributes` exactly, those in unlocked and in locked collections.
    public func searchItems(_ attributes: [String: String]) async throws(ClientError) -> (
        unlocked: [String], locked: [String]
    ) {
        let reply = try await call(
            "SearchItems", on: Self.serviceObject, interface: Self.serviceInterface, [.stringDictionary(attributes)],
            expecting: "aoao")
        guard let unlocked = reply[0].objectPaths, let locked = reply[1].objectPaths else {
            throw .unexpectedReply(member: "SearchItems")
        }
        return (unlocked.map(\.rawValue), locked.map(\.rawValue))
    }

    /// The secret of the item at `path`: a DH session is opened for this one read
    /// (``withSession(_:)``), the secret is fetched with `Item.GetSecret` and decrypted into
    /// secure memory.
    ///
    /// - Parameter collection: The item's collection id, for the message when it is locked.
    /// - Throws: ``ClientError/locked(collection:)`` when the collection is locked (this never
    ///   starts a prompt), ``ClientError/noSuchItem(_:)``, or a failure of the exchange.
    public func secret(of path: String, collection: String) async throws(ClientError) -> SecureBytes {
        guard let item = ObjectPath(path) else { throw .noSuchItem(path) }
        return try await withSession { (session, key) throws(ClientError) -> SecureBytes in
            do throws(ClientError) {
                let reply = try await call(
                    "GetSecret", on: item, interface: Self.itemInterface, [.objectPath(session)],
                    expecting: "(oayays)", collection: collection)
                return try Self.decrypt(reply, key: key)
            } catch .accessDenied {
                // On the Secret Service's item, AccessDenied is puffd's access gate (a protected
                // item nobody confirmed, or an access rule), never the control interface's uid check.
                throw .failed(
                    name: "org.freedesktop.DBus.Error.AccessDenied",
                    message:
                        "the secret was not released: the item is protected and nobody confirmed, or an access rule refuses puffctl"
                )
            }
        }
    }

    /// Opens the `(oayays)` Secret of a `GetSecret` reply with the session key.
    private static func decrypt(_ reply: [DBusValue], key: SecureBytes) throws(ClientError) -> SecureBytes {
        guard let fields = reply.first?.fields, fields.count == 4, let iv = fields[1].bytes,
            let ciphertext = fields[2].bytes
        else { throw .unexpectedReply(member: "GetSecret") }
        do throws(CryptoError) {
            return try DHTransport.decrypt(ciphertext: ciphertext, iv: iv, key: key)
        } catch {
            throw .failed(name: "", message: "the secret did not decrypt: \(error)")
        }
    }
}
