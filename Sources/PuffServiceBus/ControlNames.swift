// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffVersion

/// Names of `puffd`'s control interface (dbus/io.puff.Control1.xml).
enum ControlNames {
    static let path = ObjectPath(unchecked: "/io/puff/Control")
    static let interface: InterfaceName = "io.puff.Control1"
    /// Reported by `Status`: puffd's version.
    static let version = PuffVersion.current
}

extension ErrorName {
    static let wrongPasscode: ErrorName = "io.puff.Error.WrongPasscode"
    static let noSuchCollection: ErrorName = "io.puff.Error.NoSuchCollection"
    static let notInitialized: ErrorName = "io.puff.Error.NotInitialized"
    static let alreadyInitialized: ErrorName = "io.puff.Error.AlreadyInitialized"
    static let passcodePolicy: ErrorName = "io.puff.Error.PasscodePolicy"
    static let damaged: ErrorName = "io.puff.Error.Damaged"
    static let controlIsLocked: ErrorName = "io.puff.Error.IsLocked"
    static let notConfirmed: ErrorName = "io.puff.Error.NotConfirmed"
    static let hardware: ErrorName = "io.puff.Error.Hardware"
    static let securityKeyPIN: ErrorName = "io.puff.Error.SecurityKeyPIN"
    static let noSuchSlot: ErrorName = "io.puff.Error.NoSuchSlot"
    static let lastSlot: ErrorName = "io.puff.Error.LastSlot"
    static let wouldDropSlots: ErrorName = "io.puff.Error.WouldDropSlots"
}
