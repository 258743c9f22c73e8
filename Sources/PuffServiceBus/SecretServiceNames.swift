// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

/// Every D-Bus name of the Secret Service that Puff uses, in one place (secret-service.md §1, §3).
public enum SecretServiceNames {
    /// The well-known bus name (all lower case).
    public static let busName = BusName("org.freedesktop.secrets")!
    /// The service object. The spec XML's `/org/freedesktop/Secrets` is a typo no client uses.
    public static let servicePath = ObjectPath(unchecked: "/org/freedesktop/secrets")

    public static let service: InterfaceName = "org.freedesktop.Secret.Service"
    public static let collection: InterfaceName = "org.freedesktop.Secret.Collection"
    public static let item: InterfaceName = "org.freedesktop.Secret.Item"
    public static let session: InterfaceName = "org.freedesktop.Secret.Session"
    public static let prompt: InterfaceName = "org.freedesktop.Secret.Prompt"
    /// gnome-keyring's private interface on the service object (secret-service.md §3.1), of
    /// which puffd serves `ChangeWithPrompt`, the passcode change Seahorse-era tools use.
    public static let gnomeKeyringInternal: InterfaceName = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"

    /// Property keys that `CreateCollection` and `CreateItem` read from their `a{sv}` argument.
    public static let collectionLabelKey = "org.freedesktop.Secret.Collection.Label"
    public static let itemLabelKey = "org.freedesktop.Secret.Item.Label"
    public static let itemAttributesKey = "org.freedesktop.Secret.Item.Attributes"
    public static let itemTypeKey = "org.freedesktop.Secret.Item.Type"

    /// The signature of a transferred secret, `(oayays)`.
    public static let secretSignature: Signature = "(oayays)"
}

extension ErrorName {
    public static let isLocked: ErrorName = "org.freedesktop.Secret.Error.IsLocked"
    public static let noSession: ErrorName = "org.freedesktop.Secret.Error.NoSession"
    public static let noSuchObject: ErrorName = "org.freedesktop.Secret.Error.NoSuchObject"
    public static let alreadyExists: ErrorName = "org.freedesktop.Secret.Error.AlreadyExists"
}
