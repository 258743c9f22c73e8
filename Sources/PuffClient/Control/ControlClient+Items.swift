// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffDBus
import PuffProtocol

/// The item writes of `add`, `edit` and `rm`, made as any Secret Service client makes them
/// (secret-service.md §3.2–§3.3): puffd applies the same checks, audits them the same way, and
/// secrets cross the bus encrypted (``withSession(_:)``).
extension ControlClient {
    private static let collectionInterface = SecretInterfaces.collection
    private static let propertiesInterface: InterfaceName = "org.freedesktop.DBus.Properties"

    /// `Collection.CreateItem` without `replace`: a new item in `collection`.
    ///
    /// - Returns: The new item's path.
    /// - Throws: ``ClientError/locked(collection:)`` for a locked collection,
    ///   ``ClientError/noSuchObject``, or what puffd refuses (a limit, a label too long).
    public func createItem(
        in collection: String, label: String, attributes: [String: String], secret: SecureBytes,
        contentType: String = "text/plain"
    ) async throws(ClientError) -> String {
        let path = ObjectPath(unchecked: SecretPaths.collection(collection))
        let properties = DBusValue.dictionary(
            key: "s", value: "v",
            [
                .init(.string(SecretServiceContract.PropertyKey.itemLabel), .variant(.string(label))),
                .init(
                    .string(SecretServiceContract.PropertyKey.itemAttributes), .variant(.stringDictionary(attributes))),
            ])
        let reply = try await withSession { (session, key) throws(ClientError) -> [DBusValue] in
            let value = try Self.encrypted(secret, session: session, key: key, contentType: contentType)
            return try await call(
                "CreateItem", on: path, interface: Self.collectionInterface, [properties, value, .boolean(false)],
                expecting: "oo", collection: collection)
        }
        // puffd stores at once; a prompt here would mean another provider's behaviour.
        guard let item = reply[0].objectPath, reply[1].objectPath == .root else {
            throw .unexpectedReply(member: "CreateItem")
        }
        return item.rawValue
    }

    /// `Item.SetSecret`: replaces the item's secret.
    public func setSecret(
        _ secret: SecureBytes, of item: String, collection: String, contentType: String = "text/plain"
    ) async throws(ClientError) {
        let path = try Self.itemPath(item)
        try await withSession { (session, key) throws(ClientError) -> Void in
            let value = try Self.encrypted(secret, session: session, key: key, contentType: contentType)
            _ = try await call(
                "SetSecret", on: path, interface: Self.itemInterface, [value], expecting: "", collection: collection)
        }
    }

    /// Sets the item's `Label` property.
    public func setLabel(_ label: String, of item: String, collection: String) async throws(ClientError) {
        try await setItemProperty("Label", .string(label), of: item, collection: collection)
    }

    /// Sets the item's `Attributes` property: the whole set, replacing the old one.
    public func setAttributes(
        _ attributes: [String: String], of item: String, collection: String
    ) async throws(ClientError) {
        try await setItemProperty("Attributes", .stringDictionary(attributes), of: item, collection: collection)
    }

    /// `Item.Delete`.
    public func deleteItem(_ item: String, collection: String) async throws(ClientError) {
        let reply = try await call(
            "Delete", on: try Self.itemPath(item), interface: Self.itemInterface, expecting: "o",
            collection: collection)
        guard reply[0].objectPath == .root else { throw .unexpectedReply(member: "Delete") }
    }

    /// `io.puff.Control1.MoveItem`: puffd writes the item to `collection`, then deletes the old one.
    ///
    /// - Returns: The item's new path.
    /// - Throws: ``ClientError/locked(collection:)``, ``ClientError/noSuchCollection(_:)``, a
    ///   failure saying the item was not moved when the access gate refused, or what puffd answers.
    public func moveItem(_ item: String, to collection: String) async throws(ClientError) -> String {
        let reply: [DBusValue]
        do throws(ClientError) {
            reply = try await call(
                .moveItem, [.objectPath(try Self.itemPath(item)), .string(collection)], collection: collection,
                timeout: Self.passcodeCallTimeout)
        } catch .accessDenied {
            // The caller passed the uid check to get here: this is the access gate's refusal.
            throw .failed(
                name: "org.freedesktop.DBus.Error.AccessDenied",
                message:
                    "the item was not moved: it is protected and nobody confirmed, or an access rule refuses puffctl"
            )
        }
        guard let path = reply.first?.objectPath else { throw .unexpectedReply(member: "MoveItem") }
        return path.rawValue
    }

    private func setItemProperty(
        _ name: String, _ value: DBusValue, of item: String, collection: String
    ) async throws(ClientError) {
        _ = try await call(
            "Set", on: try Self.itemPath(item), interface: Self.propertiesInterface,
            [.string(Self.itemInterface.rawValue), .string(name), .variant(value)], expecting: "",
            collection: collection)
    }

    static func itemPath(_ item: String) throws(ClientError) -> ObjectPath {
        guard let path = ObjectPath(item) else { throw .noSuchItem(item) }
        return path
    }
}
