// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffStore
public import PuffSystem

/// One item's access settings as `puffctl access list` shows them: never a secret.
public struct ItemAccessEntry: Sendable, Equatable {
    public var item: ItemID
    public var label: String
    public var settings: ItemSettings
}

extension SecretService {
    /// Protects an item (every read asks for a confirmation) or lifts its protection.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/failed(_:)``.
    public func setProtected(_ isProtected: Bool, of id: ItemID) async throws(ServiceError) {
        try await changeSettings(of: id) { settings throws(ServiceError) in settings.isProtected = isProtected }
    }

    /// Persists a rule letting `executable` read the item (`allows`) or refusing it, as if the
    /// person had answered "always" or "deny". With content hashes on, the rule is bound to the
    /// file now at `executable`.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/invalidArgument(_:)`` for a relative path, ``ServiceError/limitExceeded(_:)``
    ///   beyond ``ItemSettings/maxRules``, ``ServiceError/failed(_:)``.
    public func setAccess(_ allows: Bool, for executable: String, of id: ItemID) async throws(ServiceError) {
        let digest = try await access.digest(forRuleOf: executable)
        try await changeSettings(of: id) { [digest] settings throws(ServiceError) in
            settings = try AccessDecision.remembering(settings, executable: executable, digest: digest, allows: allows)
        }
    }

    /// Persists a rule letting the Flatpak app `app` read the item (`allows`) or refusing it.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/limitExceeded(_:)`` beyond ``ItemSettings/maxRules``, ``ServiceError/failed(_:)``.
    public func setAppAccess(_ allows: Bool, for app: AppID, of id: ItemID) async throws(ServiceError) {
        try await changeSettings(of: id) { settings throws(ServiceError) in
            settings = try AccessDecision.remembering(settings, app: app, allows: allows)
        }
    }

    /// Forgets `app`'s rule for the item: the app's next read asks again.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` (also for an app without a rule),
    ///   ``ServiceError/isLocked``, ``ServiceError/failed(_:)``.
    public func revokeAppAccess(of id: ItemID, app: AppID) async throws(ServiceError) {
        try await changeSettings(of: id) { settings throws(ServiceError) in
            guard settings.appRules.contains(where: { $0.app == app }) else { throw .noSuchObject }
            settings.appRules.removeAll { $0.app == app }
        }
    }

    /// Forgets `executable`'s rule for the item, or every rule (apps' too) when nil: the next
    /// read asks again.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` (also for an executable without a rule),
    ///   ``ServiceError/isLocked``, ``ServiceError/failed(_:)``.
    public func revokeAccess(of id: ItemID, executable: String?) async throws(ServiceError) {
        try await changeSettings(of: id) { settings throws(ServiceError) in
            guard let executable else {
                settings.rules = []
                settings.appRules = []
                return
            }
            guard settings.rules.contains(where: { $0.executable == executable }) else { throw .noSuchObject }
            settings.rules.removeAll { $0.executable == executable }
        }
    }

    /// The settings of `items` (every item of every open collection when nil) that have any.
    ///
    /// Readable while the collection's items are in memory (open since start, visible), like
    /// labels are.
    ///
    /// - Throws: ``ServiceError/noSuchObject`` for an unknown item, ``ServiceError/isLocked`` for
    ///   an item of a collection never opened since start.
    public func accessEntries(_ items: [ItemID]?) throws(ServiceError) -> [ItemAccessEntry] {
        guard let items else {
            return collectionOrder.flatMap { id -> [ItemAccessEntry] in
                guard let state = collectionStates[id], state.isOpen else { return [] }
                return state.order.compactMap { number in
                    guard let settings = state.settings[number], !settings.isEmpty else { return nil }
                    return ItemAccessEntry(
                        item: ItemID(collection: id, number: number), label: state.items[number]?.label ?? "",
                        settings: settings)
                }
            }
        }
        return try items.map { id throws(ServiceError) in
            let record = try record(of: id)
            guard let state = collectionStates[id.collection], state.isOpen else { throw .isLocked }
            return ItemAccessEntry(item: id, label: record.label, settings: state.settings[id.number] ?? ItemSettings())
        }
    }

    /// Applies `change` to an unlocked item's settings and appends a settings record of each kind
    /// that changed (kind 4 for protection and executables' rules, kind 5 for app rules): the
    /// cost does not grow with the collection.
    func changeSettings(
        of id: ItemID, _ change: (inout ItemSettings) throws(ServiceError) -> Void
    ) async throws(ServiceError) {
        // Applied again to the settings as pulled when another machine appended first.
        try await retryingConflicts(in: id.collection) { () throws(ServiceError) in
            try await changeSettingsOnce(of: id, change)
        }
    }

    private func changeSettingsOnce(
        of id: ItemID, _ change: (inout ItemSettings) throws(ServiceError) -> Void
    ) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        _ = try record(of: id)
        let state = try state(of: id.collection)
        guard !state.isLocked else { throw .isLocked }
        let old = state.settings[id.number]
        var settings = old ?? ItemSettings()
        try change(&settings)
        guard settings != old else { return }
        if state.space != nil, state.sealer != nil {
            for (index, record) in settings.drafts(from: old, number: id.number).enumerated() {
                let replaced = state.settingsRecords[id.number]?.has(record.kind) == true
                do throws(ServiceError) {
                    try await persist(record, in: state, obsoleting: replaced ? 1 : 0)
                } catch {
                    // Forgetting every rule writes kind 4, then kind 5: the first one is kept.
                    if index > 0, state.items[id.number] != nil, state.isOpen {
                        var kept = old ?? ItemSettings()
                        (kept.isProtected, kept.rules) = (settings.isProtected, settings.rules)
                        state.settings[id.number] = kept
                    }
                    throw error
                }
            }
        }
        // A private collection locked during the append forgot its items; it reads the record
        // when it opens again.
        guard state.items[id.number] != nil, state.isOpen else { return }
        state.settings[id.number] = settings
        logger.info(
            "Item access settings changed",
            metadata: [
                "item.id": "\(id)", "protected": "\(settings.isProtected)", "rules": "\(settings.rules.count)",
                "app_rules": "\(settings.appRules.count)",
            ])
    }
}
