// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// The Secret Service's names as PuffDBus values, from the one wire contract (PuffProtocol).
public enum SecretServiceNames {
    /// The well-known bus name (all lower case).
    public static let busName = BusName(SecretServiceContract.busName)!
    /// The service object.
    public static let servicePath = ObjectPath(unchecked: SecretServiceContract.servicePath)

    public static let service = InterfaceName(SecretServiceContract.Interface.service)!
    public static let collection = InterfaceName(SecretServiceContract.Interface.collection)!
    public static let item = InterfaceName(SecretServiceContract.Interface.item)!
    public static let session = InterfaceName(SecretServiceContract.Interface.session)!
    public static let prompt = InterfaceName(SecretServiceContract.Interface.prompt)!
    /// gnome-keyring's private interface on the service object (secret-service.md §3.1).
    public static let gnomeKeyringInternal = InterfaceName(SecretServiceContract.Interface.gnomeKeyringInternal)!

    /// Property keys that `CreateCollection` and `CreateItem` read from their `a{sv}` argument.
    public static let collectionLabelKey = SecretServiceContract.PropertyKey.collectionLabel
    public static let itemLabelKey = SecretServiceContract.PropertyKey.itemLabel
    public static let itemAttributesKey = SecretServiceContract.PropertyKey.itemAttributes
    public static let itemTypeKey = SecretServiceContract.PropertyKey.itemType

    /// The signature of a transferred secret, `(oayays)`.
    public static let secretSignature = Signature(SecretServiceContract.secretSignature)!
}

extension ErrorName {
    public static let isLocked = ErrorName(SecretServiceContract.ErrorName.isLocked)!
    public static let noSession = ErrorName(SecretServiceContract.ErrorName.noSession)!
    public static let noSuchObject = ErrorName(SecretServiceContract.ErrorName.noSuchObject)!
    public static let alreadyExists = ErrorName(SecretServiceContract.ErrorName.alreadyExists)!
}
