// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

extension VaultStatus {
    /// The `(a{sv}aa{sv})` body of `Status` (dbus/io.puff.Control1.xml), with the contract's keys
    /// (``ControlContract/Key/vaultStatus`` and ``ControlContract/Key/collectionStatus``);
    /// `prompter` says who would answer an unlock prompt now. A fleet collection's record names
    /// its shared store's kind as its store and says how that store answered last.
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
                ControlKey.store: .string(entry.shared?.store ?? storeKind),
                ControlKey.lockedSearch: .string(entry.lockedSearch), ControlKey.indexKey: .string(entry.indexKey),
                ControlKey.searchWaitsForUnlock: .boolean(entry.searchWaitsForUnlock),
            ]
            var record = fields.merging(entry.policy?.statusEntries ?? [:]) { $1 }
            if let shared = entry.shared { record.merge(shared.statusEntries) { $1 } }
            return .variantDictionary(record)
        }
        return [.variantDictionary(vault), .array(element: "a{sv}", entries)]
    }
}

extension SharedLink {
    /// The fields of a fleet collection's `Status` record that say how its shared store answered
    /// (``ControlContract/Key/sharedStatus``); `online` only once a pull or append was tried.
    var statusEntries: [String: DBusValue] {
        var fields: [String: DBusValue] = [
            ControlKey.sharedName: .string(name), ControlKey.checkedAt: .uint64(checkedAt),
            ControlKey.reachedAt: .uint64(reachedAt), ControlKey.offlineReason: .string(reason),
        ]
        if let reachable { fields[ControlKey.online] = .boolean(reachable) }
        return fields
    }
}
