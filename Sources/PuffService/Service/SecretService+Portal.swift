// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
import PuffStore
public import PuffSystem

/// What ``SecretService/portalKey(for:caller:)`` answers the Secret portal.
public enum PortalAnswer: Sendable {
    /// The app's key, in locked memory; wiped when released.
    case key(SecureBytes)
    /// Nobody unlocked the default collection (nobody to ask, dismissed, timed out, withdrawn),
    /// or nobody confirmed a protected key: the portal's response 1.
    case cancelled
    /// Anything else, for the log: the portal's response 2.
    case failed(String)
}

extension SecretService {
    /// The `xdg:schema` of an app's portal key, as gnome-keyring and the issue name it.
    public static let portalSchema = "org.freedesktop.portal.Secret"
    /// How many random bytes a new key has (gnome-keyring's and oo7's length).
    static let portalKeyLength = 64

    /// The attributes that name `app`'s key, exactly: an item with `app_id` alone (oo7-portal's,
    /// or an app's own) is not a key, and handing out its secret as one would leak it.
    static func portalKeyAttributes(_ app: AppID) -> Attributes {
        ["app_id": app.rawValue, "xdg:schema": portalSchema]
    }

    /// The Secret portal's key for `app` (docs/design/sandboxed-apps.md §2.3): the secret of the
    /// item of the default collection with exactly ``portalKeyAttributes(_:)`` (the oldest if
    /// several), made on first use from 64 random bytes. A new key is durable before it is
    /// returned: a key handed out and then lost would leave the app's secrets unreadable, silently.
    ///
    /// A locked collection is unlocked through the usual question, asked for the app (bounded by
    /// the prompt timeout; cancelling the calling task withdraws it); with nobody to ask it is
    /// ``PortalAnswer/cancelled`` at once. The read passes the access gate as the app's own key:
    /// no access-mode question, but a deny rule refuses and protection confirms. Each answer is
    /// audited as `portal-key` in the collection's log when it is open.
    ///
    /// - Parameter portal: The caller the bus saw (xdg-desktop-portal); the app is asked for in
    ///   its name.
    public func portalKey(for app: AppID, caller portal: Caller) async -> PortalAnswer {
        let caller = Caller(
            portal.client, executable: portal.executable, pid: portal.pid, sandbox: .app(app, instance: nil))
        guard let collection = readAlias("default"), let vault = collectionStates[collection] else {
            return .failed("no default collection")
        }
        if vault.isLocked, let answer = await unlockForPortal(collection, caller: caller) { return answer }
        let id: ItemID
        do throws(ServiceError) {
            id = try await portalKeyItem(for: app, in: collection, caller: caller)
        } catch {
            auditPortal(ItemID(collection: collection, number: 0), app, caller, .failed)
            return error == .isLocked ? .cancelled : .failed("the key could not be made: \(error)")
        }
        let outcome = await admit(id, caller: caller, until: readDeadline(), ownKey: true)
        guard let state = collectionStates[collection], !state.isLocked, let record = state.items[id.number] else {
            return .cancelled
        }
        switch outcome {
        case .allowed: break
        case .refused:
            auditPortal(id, app, caller, .refused)
            return .failed("refused by a rule or a person")
        case .dismissed:
            auditPortal(id, app, caller, .dismissed)
            return .cancelled
        }
        do throws(ServiceError) {
            let key = try plaintext(of: record, id, in: state)
            guard key.count > 0, key.count <= 4096 else { throw .failed("the key's length is \(key.count)") }
            noteUse(state)
            auditPortal(id, app, caller, .allowed)
            return .key(key)
        } catch {
            auditPortal(id, app, caller, .failed)
            return .failed("the key could not be read: \(error)")
        }
    }

    /// Notes a `RetrieveSecret` from a caller that is not the portal (``AuditAction/portalKey``,
    /// refused, item 0) in the default collection's log, when it is open.
    public func recordPortalRefusal(app: String, caller: Caller) {
        guard let collection = readAlias("default") else { return }
        audit(
            .portalKey, of: ItemID(collection: collection, number: 0), label: String(app.prefix(255)), caller: caller,
            result: .refused)
    }

    /// Whether `caller` is sandboxed and `id` is a portal key: only the portal hands keys to apps,
    /// so a sandboxed app may neither read nor change one, its own included (F9).
    func refusesPortalKey(_ id: ItemID, to caller: Caller) -> Bool {
        guard caller.sandbox != .host else { return false }
        return collectionStates[id.collection]?.items[id.number]?.attributes["xdg:schema"] == Self.portalSchema
    }

    /// Refuses a sandboxed `caller` an item made to look like a portal key: one planted before an
    /// app's first call would become that app's key, known to whoever planted it.
    func refusePortalKey(_ attributes: Attributes, to caller: Caller) throws(ServiceError) {
        if caller.sandbox != .host, attributes["xdg:schema"] == Self.portalSchema { throw .readRefused(.portalKey) }
    }

    /// Unlocks `collection` for the app's key: nil once open, else the answer to give. Nobody to
    /// ask is an answer at once, never a wait.
    private func unlockForPortal(_ collection: CollectionID, caller: Caller) async -> PortalAnswer? {
        guard await prompter.answeringKind() ?? DismissingPrompter.kind != DismissingPrompter.kind else {
            return .cancelled
        }
        let asker = PromptAsker(
            prompter: prompter, caller: caller.client, windowID: "", application: caller.description)
        let outcome = await withTaskGroup(of: PromptOutcome?.self) { group in
            group.addTask { await self.runUnlock([collection], asker) }
            group.addTask { [clock, promptTimeout] in
                try? await Self.sleep(on: clock, for: promptTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .timedOut
        }
        guard collectionStates[collection]?.isLocked == false else {
            if case .prompterFailed = outcome { return .failed("the prompter failed") }
            if case .failed(let error) = outcome { return .failed("\(error)") }
            return .cancelled
        }
        return nil
    }

    /// The key item of `app` in `collection`, made if there is none. The search and the create
    /// hold one write turn, after every pending write of the collection settled, so two first
    /// calls of one app make one item; the new item is committed before this returns.
    private func portalKeyItem(
        for app: AppID, in collection: CollectionID, caller: Caller
    ) async throws(ServiceError) -> ItemID {
        try await retryingConflicts(in: collection) { () throws(ServiceError) in
            try await portalKeyItemOnce(for: app, in: collection, caller: caller)
        }
    }

    private func portalKeyItemOnce(
        for app: AppID, in collection: CollectionID, caller: Caller
    ) async throws(ServiceError) -> ItemID {
        let attributes = Self.portalKeyAttributes(app)
        let label = "Portal key of \(app)"
        let (id, write) = try await withPipelinedTurn { () async throws(ServiceError) -> (ItemID, PreparedWrite?) in
            let state = try state(of: collection)
            await drain(state)
            guard !state.isLocked else { throw .isLocked }
            let list = AttributeList(attributes)
            if let number = state.exactMatch(list, digests: state.digests(of: list)) {
                return (ItemID(collection: collection, number: number), nil)
            }
            let (id, _, write) = try await stageCreate(
                in: collection, label: label, attributes: attributes, type: "",
                contentType: "application/octet-stream", replace: false, caller: caller
            ) { () throws(ServiceError) in SecureRandom.secureBytes(Self.portalKeyLength) }
            return (id, write)
        }
        guard let write else { return id }
        try await audited(.create, of: id, label: label, caller: caller) { () throws(ServiceError) in
            try await commit(write)
        }
        logger.info("Made an app's portal key", metadata: ["app": "\(app)", "item.id": "\(id)"])
        return id
    }

    private func auditPortal(_ id: ItemID, _ app: AppID, _ caller: Caller, _ result: AuditResult) {
        audit(.portalKey, of: id, label: app.rawValue, caller: caller, result: result)
    }
}
