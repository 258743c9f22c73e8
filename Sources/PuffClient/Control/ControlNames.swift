// SPDX-License-Identifier: Apache-2.0
public import PuffDBus

/// Every D-Bus name puffctl uses, as `dbus/io.puff.Control1.xml` spells it.
public enum ControlNames {
    /// The well-known name puffd's control connection owns; nothing else serves ``interface``, so a
    /// proxy rule for ``secretsBusName`` does not reach it.
    public static let busName = "io.puff.Control"
    /// The well-known name of the Secret Service, which puffd shares with every other provider.
    public static let secretsBusName = "org.freedesktop.secrets"
    /// The object that serves ``interface``.
    public static let path = ObjectPath(unchecked: "/io/puff/Control")
    /// puffd's private control interface.
    public static let interface: InterfaceName = "io.puff.Control1"
}

extension ErrorName {
    /// `io.puff.Error.WrongPasscode`: the passcode does not open the collection.
    public static let puffWrongPasscode: ErrorName = "io.puff.Error.WrongPasscode"
    /// `io.puff.Error.NoSuchCollection`: no visible collection by that id.
    public static let puffNoSuchCollection: ErrorName = "io.puff.Error.NoSuchCollection"
    /// `io.puff.Error.NotInitialized`: no passcode set yet.
    public static let puffNotInitialized: ErrorName = "io.puff.Error.NotInitialized"
    /// `io.puff.Error.AlreadyInitialized`: `Init` on a vault that has its login collection.
    public static let puffAlreadyInitialized: ErrorName = "io.puff.Error.AlreadyInitialized"
    /// `io.puff.Error.PasscodePolicy`: the new passcode breaks the collection's policy.
    public static let puffPasscodePolicy: ErrorName = "io.puff.Error.PasscodePolicy"
    /// `io.puff.Error.Damaged`: the collection's files failed to open.
    public static let puffDamaged: ErrorName = "io.puff.Error.Damaged"
    /// `io.puff.Error.NotConfirmed`: a change that weakens protection got no consent.
    public static let puffNotConfirmed: ErrorName = "io.puff.Error.NotConfirmed"
    /// `io.puff.Error.Hardware`: a TPM or security key did not give a slot's key.
    public static let puffHardware: ErrorName = "io.puff.Error.Hardware"
    /// `io.puff.Error.SecurityKeyPIN`: the security key's PIN is needed, wrong or blocked.
    public static let puffSecurityKeyPIN: ErrorName = "io.puff.Error.SecurityKeyPIN"
    /// `io.puff.Error.NoSuchSlot`: no slot of that number, or none the credential opens.
    public static let puffNoSuchSlot: ErrorName = "io.puff.Error.NoSuchSlot"
    /// `io.puff.Error.LastSlot`: removing the slot would leave the collection with none.
    public static let puffLastSlot: ErrorName = "io.puff.Error.LastSlot"
    /// `io.puff.Error.WouldDropSlots`: a re-key would drop slots whose credential is not at hand.
    public static let puffWouldDropSlots: ErrorName = "io.puff.Error.WouldDropSlots"
    /// `io.puff.Error.IsLocked`: the call needs the collection unlocked.
    public static let puffIsLocked: ErrorName = "io.puff.Error.IsLocked"
    /// `org.freedesktop.Secret.Error.NoSuchObject`, from the Secret Service specification.
    public static let secretNoSuchObject: ErrorName = "org.freedesktop.Secret.Error.NoSuchObject"
    /// `org.freedesktop.Secret.Error.IsLocked`, from the Secret Service specification.
    public static let secretIsLocked: ErrorName = "org.freedesktop.Secret.Error.IsLocked"
    /// `org.freedesktop.DBus.Error.ServiceUnknown`: nothing owns the name and nothing can be activated.
    public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// `org.freedesktop.DBus.Error.NameHasNoOwner`: nothing owns the name.
    public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
}
