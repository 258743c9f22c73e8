// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// Every D-Bus name puffctl uses, as PuffDBus values from the one wire contract (PuffProtocol).
public enum ControlNames {
    /// The well-known name puffd's control connection owns.
    public static let busName = ControlContract.busName
    /// The well-known name of the Secret Service, which puffd shares with every other provider.
    public static let secretsBusName = SecretServiceContract.busName
    /// The object that serves ``interface``.
    public static let path = ObjectPath(unchecked: ControlContract.path)
    /// puffd's private control interface.
    public static let interface = InterfaceName(ControlContract.interface)!
}

/// The Secret Service's interfaces as puffctl calls them.
enum SecretInterfaces {
    static let service = InterfaceName(SecretServiceContract.Interface.service)!
    static let collection = InterfaceName(SecretServiceContract.Interface.collection)!
    static let item = InterfaceName(SecretServiceContract.Interface.item)!
    static let session = InterfaceName(SecretServiceContract.Interface.session)!
    static let prompt = InterfaceName(SecretServiceContract.Interface.prompt)!
}

extension ErrorName {
    public static let puffWrongPasscode = ErrorName(ControlContract.ErrorName.wrongPasscode)!
    public static let puffNoSuchCollection = ErrorName(ControlContract.ErrorName.noSuchCollection)!
    public static let puffNotInitialized = ErrorName(ControlContract.ErrorName.notInitialized)!
    public static let puffAlreadyInitialized = ErrorName(ControlContract.ErrorName.alreadyInitialized)!
    public static let puffPasscodePolicy = ErrorName(ControlContract.ErrorName.passcodePolicy)!
    public static let puffDamaged = ErrorName(ControlContract.ErrorName.damaged)!
    public static let puffNotConfirmed = ErrorName(ControlContract.ErrorName.notConfirmed)!
    public static let puffHardware = ErrorName(ControlContract.ErrorName.hardware)!
    public static let puffSecurityKeyPIN = ErrorName(ControlContract.ErrorName.securityKeyPIN)!
    public static let puffOffline = ErrorName(ControlContract.ErrorName.offline)!
    public static let puffNoSuchSlot = ErrorName(ControlContract.ErrorName.noSuchSlot)!
    public static let puffLastSlot = ErrorName(ControlContract.ErrorName.lastSlot)!
    public static let puffWouldDropSlots = ErrorName(ControlContract.ErrorName.wouldDropSlots)!
    public static let puffIsLocked = ErrorName(ControlContract.ErrorName.isLocked)!
    public static let secretNoSuchObject = ErrorName(SecretServiceContract.ErrorName.noSuchObject)!
    public static let secretIsLocked = ErrorName(SecretServiceContract.ErrorName.isLocked)!
    /// `org.freedesktop.DBus.Error.ServiceUnknown`: nothing owns the name and nothing can be activated.
    public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
}

/// The keys of `io.puff.Control1`'s `a{sv}` records and options, from the one wire contract.
typealias ControlKey = ControlContract.Key

/// A coding key spelled by the wire contract: `--json` output uses the keys of the records it shows.
struct ContractKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ key: String) {
        stringValue = key
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
