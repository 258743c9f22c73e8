// SPDX-License-Identifier: Apache-2.0

/// The freedesktop Secret Service's names as they travel on the bus (secret-service.md §1–§3):
/// the one place puffd, puffctl and the tests take them from. Plain strings, so this target
/// depends on nothing; each side wraps them in its own D-Bus types.
public enum SecretServiceContract {
    /// The well-known bus name (all lower case).
    public static let busName = "org.freedesktop.secrets"
    /// The service object. The spec XML's `/org/freedesktop/Secrets` is a typo no client uses.
    public static let servicePath = "/org/freedesktop/secrets"
    /// What every collection path starts with; an encoded collection id follows.
    public static let collectionPathPrefix = servicePath + "/collection/"

    /// The interfaces of the service's objects.
    public enum Interface {
        public static let service = "org.freedesktop.Secret.Service"
        public static let collection = "org.freedesktop.Secret.Collection"
        public static let item = "org.freedesktop.Secret.Item"
        public static let session = "org.freedesktop.Secret.Session"
        public static let prompt = "org.freedesktop.Secret.Prompt"
        /// gnome-keyring's private interface on the service object (secret-service.md §3.1), of
        /// which puffd serves `ChangeWithPrompt`, the passcode change Seahorse-era tools use.
        public static let gnomeKeyringInternal = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
    }

    /// Property keys that `CreateCollection` and `CreateItem` read from their `a{sv}` argument.
    public enum PropertyKey {
        public static let collectionLabel = Interface.collection + ".Label"
        public static let itemLabel = Interface.item + ".Label"
        public static let itemAttributes = Interface.item + ".Attributes"
        public static let itemType = Interface.item + ".Type"
    }

    /// The error names the specification defines.
    public enum ErrorName {
        public static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        public static let noSession = "org.freedesktop.Secret.Error.NoSession"
        public static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        public static let alreadyExists = "org.freedesktop.Secret.Error.AlreadyExists"
    }

    /// The signature of a transferred secret, `(oayays)`.
    public static let secretSignature = "(oayays)"
    /// The `xdg:schema` of an item stored without a schema (libsecret's generic schema).
    public static let genericSchema = "org.freedesktop.Secret.Generic"
}
