// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffVersion

/// Names of `puffd`'s control interface as PuffDBus values, from the one wire contract.
enum ControlNames {
    static let busName = BusName(ControlContract.busName)!
    static let path = ObjectPath(unchecked: ControlContract.path)
    static let interface = InterfaceName(ControlContract.interface)!
    /// Reported by `Status`: puffd's version.
    static let version = PuffVersion.current
}

extension ErrorName {
    static let wrongPasscode = ErrorName(ControlContract.ErrorName.wrongPasscode)!
    static let noSuchCollection = ErrorName(ControlContract.ErrorName.noSuchCollection)!
    static let notInitialized = ErrorName(ControlContract.ErrorName.notInitialized)!
    static let alreadyInitialized = ErrorName(ControlContract.ErrorName.alreadyInitialized)!
    static let passcodePolicy = ErrorName(ControlContract.ErrorName.passcodePolicy)!
    static let damaged = ErrorName(ControlContract.ErrorName.damaged)!
    static let controlIsLocked = ErrorName(ControlContract.ErrorName.isLocked)!
    static let notConfirmed = ErrorName(ControlContract.ErrorName.notConfirmed)!
    static let hardware = ErrorName(ControlContract.ErrorName.hardware)!
    static let securityKeyPIN = ErrorName(ControlContract.ErrorName.securityKeyPIN)!
    static let noSuchSlot = ErrorName(ControlContract.ErrorName.noSuchSlot)!
    static let lastSlot = ErrorName(ControlContract.ErrorName.lastSlot)!
    static let wouldDropSlots = ErrorName(ControlContract.ErrorName.wouldDropSlots)!
    static let offline = ErrorName(ControlContract.ErrorName.offline)!
}

/// The keys of `io.puff.Control1`'s `a{sv}` records and options, from the one wire contract.
typealias ControlKey = ControlContract.Key
