// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffConcurrency
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore

/// `io.puff.Control1` at `/io/puff/Control` (dbus/io.puff.Control1.xml): status, passcodes and
/// collection management for `puffctl`. Only callers with `puffd`'s own uid get in.
extension SecretInterfaces {
    static func control(_ context: BusContext) -> Interface {
        let service = context.service
        return Interface(
            ControlNames.interface,
            methods: [
                controlMethod(.status) { call in
                    let status = await service.vaultStatus
                    return status.controlReply(prompter: await service.answeringPrompter())
                },
                controlMethod(.initialize, in: .variantDictionary("options"), .unixFD("passcode")) {
                    call, options, pipe in
                    let policy = try PasscodePolicy(options: options)
                    try await service.initialize(passcode: try await call.passcode(from: pipe), policy: policy)
                    return []
                },
                controlMethod(.unlock, in: .string("collection"), .unixFD("passcode")) { call, name, pipe in
                    let id = try await service.unlock(
                        name.isEmpty ? nil : CollectionID(name), passcode: try await call.passcode(from: pipe))
                    return [.string(id.rawValue)]
                },
                controlMethod(.lock, in: .strings("collections")) { call, names in
                    try await service.lock(names.map(CollectionID.init))
                    return []
                },
                controlMethod(
                    .changePasscode, in: .string("collection"), .unixFD("old_passcode"), .unixFD("new_passcode")
                ) { call, name, old, new in
                    try await service.changePasscode(
                        of: CollectionID(name), old: try await call.passcode(from: old),
                        new: try await call.passcode(from: new),
                        progress: context.progress(of: .changePasscode, for: call))
                    return []
                },
                controlMethod(
                    .createCollection, in: .string("label"), .variantDictionary("options"), .unixFD("passcode")
                ) { call, label, options, pipe in
                    let policy = try PasscodePolicy(options: options)
                    let search = try options[ControlKey.lockedSearch].map(LockedSearchOption.mode)
                    let id = try await service.createCollection(
                        label: label, passcode: try await call.passcode(from: pipe),
                        isPrivate: options[ControlKey.isPrivate]?.bool ?? false,
                        isHidden: options[ControlKey.hidden]?.bool ?? false,
                        policy: policy, lockedSearch: search?.mode, indexStorage: search?.storage)
                    return [.string(id.rawValue)]
                },
                controlMethod(.setLockedSearch, in: .string("collection"), .string("mode"), .unixFD("passcode")) {
                    call, name, mode, pipe in
                    let chosen = try LockedSearchOption.mode(.string(mode))
                    try await service.setLockedSearch(
                        chosen.mode, of: CollectionID(name), passcode: try await call.passcode(from: pipe),
                        caller: call.caller, indexStorage: chosen.storage)
                    return []
                },
                controlMethod(.deleteCollection, in: .string("collection"), .variantDictionary("options")) {
                    call, name, options in
                    // A locked collection needs its passcode, through a pipe in options["passcode"].
                    var passcode: SecureBytes?
                    if let descriptor = options[ControlKey.passcode]?.unixFD {
                        passcode = try await call.passcode(from: descriptor)
                    }
                    let deleted = try await service.deleteCollection(
                        CollectionID(name), passcode: passcode, caller: call.caller)
                    var entries = deleted.controlEntries
                    entries[ControlKey.keptDays] = .uint32(UInt32(clamping: service.keepDeletedDays))
                    return [.variantDictionary(entries)]
                },
                controlMethod(.deletedCollections) { _ in
                    let list = try await service.deletedCollections()
                    return [.array(element: "a{sv}", list.map { .variantDictionary($0.controlEntries) })]
                },
                controlMethod(.restoreCollection, in: .string("name")) { call, name in
                    let id = try await service.restoreCollection(name)
                    return [.string(id?.rawValue ?? "")]
                },
                controlMethod(.shareCollection, in: .string("collection"), .string("name")) { call, collection, name in
                    try await service.shareCollection(CollectionID(collection), as: name)
                    return []
                },
                controlMethod(.attachCollection, in: .string("name")) { call, name in
                    [.string(try await service.attachCollection(name).rawValue)]
                },
                controlMethod(.renameCollection, in: .string("collection"), .string("label")) { call, name, label in
                    try await service.setLabel(label, of: CollectionID(name))
                    return []
                },
                controlMethod(.setDefault, in: .string("collection")) { call, name in
                    try await service.setAlias("default", to: CollectionID(name))
                    return []
                },
                controlMethod(.compact, in: .string("collection")) { call, name in
                    let progress = context.progress(of: .compact, for: call)
                    return [
                        .uint64(try await service.compact(name.isEmpty ? nil : CollectionID(name), progress: progress))
                    ]
                },
                controlMethod(.repair, in: .string("collection")) { call, name in
                    let report = try await service.repair(CollectionID(name))
                    return [
                        .uint64(UInt64(report.keptRecords)), .strings(report.lost),
                        .string(report.keptAt),
                    ]
                },
                controlMethod(.listItems, in: .string("collection")) { call, name in
                    let id = CollectionID(name)
                    guard await service.collections.contains(id) else { throw ServiceError.noSuchObject }
                    var items: [DBusValue] = []
                    for item in await service.itemIDs(in: id) {
                        guard let info = try? await service.itemInfo(item) else { continue }
                        var fields: [String: DBusValue] = [
                            ControlKey.path: .objectPath(ObjectPaths.path(of: item)),
                            ControlKey.label: .string(info.label),
                            ControlKey.attributes: .stringDictionary(info.attributes),
                            ControlKey.created: .uint64(info.created), ControlKey.modified: .uint64(info.modified),
                            ControlKey.locked: .boolean(info.isLocked),
                        ]
                        if let record = try? await service.typedRecord(of: item) {
                            fields[ControlKey.kind] = .string(record.kind.rawValue)
                            fields[ControlKey.fields] = .stringDictionary(record.fields)
                        }
                        items.append(.variantDictionary(fields))
                    }
                    return [.array(element: "a{sv}", items)]
                },
            ] + agentMethods(context) + auditMethods(context) + accessMethods(context) + itemMethods(context)
                + backupMethods(context) + storeMethods(context) + importMethods(context) + exportMethods(context)
                + slotMethods(context),
            signals: [progressSignal]
        )
    }
}

extension DeletedCollection {
    /// The `a{sv}` `DeleteCollection` and `DeletedCollections` answer with.
    var controlEntries: [String: DBusValue] {
        [
            ControlKey.id: .string(id ?? ""), ControlKey.label: .string(label),
            ControlKey.items: .uint32(UInt32(clamping: itemCount)), ControlKey.deletedAt: .uint64(deletedAt),
            ControlKey.name: .string(name), ControlKey.hidden: .boolean(id == nil),
        ]
    }
}

/// The `locked_search` option of `CreateCollection` and the mode of `SetLockedSearch`.
enum LockedSearchOption {
    /// The mode and index storage `value` names: `always`, `tpm2` (`always` with the index key
    /// sealed by the TPM), `after-unlock` or `never`.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for another name or type.
    static func mode(_ value: DBusValue) throws(ServiceError) -> (
        mode: LockedSearch, storage: VaultHeader.IndexStorage?
    ) {
        guard let name = value.string, let chosen = LockedSearch.named(name) else {
            throw .invalidArgument("locked_search must be always, tpm2, after-unlock or never")
        }
        return chosen
    }
}

extension DBusValue {
    /// `a{sv}` from a dictionary, keys sorted.
    static func variantDictionary(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            entries.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .variant($0.value)) })
    }
}
