// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

extension VaultStatus {
    /// The `(a{sv}aa{sv})` body of `Status` (dbus/io.puff.Control1.xml), with the contract's keys
    /// (``ControlContract/Key/vaultStatus`` and ``ControlContract/Key/collectionStatus``);
    /// `prompter` says who would answer an unlock prompt now.
    func controlReply(prompter: String) -> [DBusValue] {
        let vault: [String: DBusValue] = [
            ControlKey.initialized: .boolean(isInitialized), ControlKey.store: .string(storeKind),
            ControlKey.dataDirectory: .string(location), ControlKey.version: .string(ControlNames.version),
            ControlKey.prompter: .string(prompter),
            ControlKey.problems: .array(element: "s", problems.map(DBusValue.string)),
        ]
        let entries = collections.map { entry -> DBusValue in
            let fields: [String: DBusValue] = [
                ControlKey.id: .string(entry.id), ControlKey.label: .string(entry.label),
                ControlKey.locked: .boolean(entry.isLocked),
                ControlKey.items: .uint32(UInt32(clamping: entry.itemCount)),
                ControlKey.isPrivate: .boolean(entry.isPrivate), ControlKey.hidden: .boolean(entry.isHidden),
                ControlKey.isDefault: .boolean(entry.isDefault), ControlKey.damaged: .string(entry.damage),
                ControlKey.store: .string(storeKind), ControlKey.lockedSearch: .string(entry.lockedSearch),
                ControlKey.indexKey: .string(entry.indexKey),
                ControlKey.searchWaitsForUnlock: .boolean(entry.searchWaitsForUnlock),
            ]
            return .variantDictionary(fields.merging(entry.policy?.statusEntries ?? [:]) { $1 })
        }
        return [.variantDictionary(vault), .array(element: "a{sv}", entries)]
    }
}
