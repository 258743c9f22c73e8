// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
public import PuffStore
public import PuffSystem

/// How the person agrees to a change that weakens protection (issue 24, item 2).
public enum Consent: Sendable {
    /// The collection's passcode, read from a pipe: checked against its header, one key
    /// derivation, with the wrong-passcode delay of an unlock.
    case passcode(SecureBytes)
    /// A yes through the prompter chain (pinentry's `CONFIRM`, the registered agent). With nobody
    /// to ask, the change is refused.
    case confirmation
}

/// A change to an item's access settings, as `io.puff.Control1` asks for it.
public enum ItemSettingsChange: Sendable, Equatable {
    /// Protect the item (`true`) or lift its protection.
    case protect(Bool)
    /// Let `executable` read the item (`true`) or refuse it.
    case access(executable: String, allows: Bool)
    /// Forget `executable`'s rule, or every rule (apps' too) when nil.
    case revoke(executable: String?)
    /// Let the Flatpak app `app` read the item (`true`) or refuse it.
    case appAccess(app: AppID, allows: Bool)
    /// Forget `app`'s rule.
    case revokeApp(AppID)

    /// What the audit log records for the change.
    var action: AuditAction {
        switch self {
        case .protect(true): .protect
        case .protect(false): .unprotect
        case .access(_, true), .appAccess(_, true): .allowAccess
        case .access(_, false), .appAccess(_, false): .denyAccess
        case .revoke, .revokeApp: .revokeAccess
        }
    }

    /// Whether applying the change to `settings` lets some read through that would have been
    /// refused or asked about: lifting protection, an allow rule (new or replacing a deny), or
    /// forgetting a deny rule.
    func weakens(_ settings: ItemSettings) -> Bool {
        switch self {
        case .protect(let on): return !on && settings.isProtected
        case .access(let executable, let allows):
            return allows && settings.rules.first { $0.executable == executable }?.allows != true
        case .revoke(let executable):
            return settings.rules.contains { !$0.allows && (executable == nil || $0.executable == executable) }
                || (executable == nil && settings.appRules.contains { !$0.allows })
        case .appAccess(let app, let allows):
            return allows && settings.appRules.first { $0.app == app }?.allows != true
        case .revokeApp(let app):
            return settings.appRules.contains { !$0.allows && $0.app == app }
        }
    }

    /// The change in words, for the question: "lift the protection of the item “mail”".
    func phrase(label: String) -> String {
        switch self {
        case .protect(true): "protect the item “\(label)”"
        case .protect(false): "lift the protection of the item “\(label)”"
        case .access(let executable, true): "let \(executable) read the item “\(label)” without asking"
        case .access(let executable, false): "deny \(executable) the item “\(label)”"
        case .revoke(let executable?): "forget the rule of \(executable) for the item “\(label)”"
        case .revoke(nil): "forget every access rule of the item “\(label)”"
        case .appAccess(let app, true): "let the app \(app) read the item “\(label)” without asking"
        case .appAccess(let app, false): "deny the app \(app) the item “\(label)”"
        case .revokeApp(let app): "forget the rule of the app \(app) for the item “\(label)”"
        }
    }
}

extension SecretService {
    /// Applies `change` to an item's settings. A change that weakens protection
    /// (``ItemSettingsChange/weakens(_:)``) first needs `consent`: the collection's passcode, or
    /// the person's yes through the prompter chain. Every change, done or refused, is audited in
    /// the item's collection.
    ///
    /// - Throws: ``ServiceError/noSuchObject``, ``ServiceError/isLocked``,
    ///   ``ServiceError/wrongPasscode``, ``ServiceError/notConfirmed(_:)``, and what the change
    ///   itself throws (``setAccess(_:for:of:)``).
    public func changeItemSettings(
        _ change: ItemSettingsChange, of id: ItemID, caller: Caller, consent: Consent
    ) async throws(ServiceError) {
        let record = try record(of: id)
        let state = try state(of: id.collection)
        guard !state.isLocked else { throw .isLocked }
        let label = describedLabel(record.label, of: change)
        if change.weakens(state.settings[id.number] ?? ItemSettings()) {
            do {
                try await requireConsent(
                    consent, in: id.collection, change: change.phrase(label: record.label), caller: caller)
            } catch {
                audit(change.action, of: id, label: label, caller: caller, result: Self.auditResult(of: error))
                throw error
            }
        }
        try await audited(change.action, of: id, label: label, caller: caller) { () throws(ServiceError) in
            switch change {
            case .protect(let on): try await setProtected(on, of: id)
            case .access(let executable, let allows): try await setAccess(allows, for: executable, of: id)
            case .revoke(let executable): try await revokeAccess(of: id, executable: executable)
            case .appAccess(let app, let allows): try await setAppAccess(allows, for: app, of: id)
            case .revokeApp(let app): try await revokeAppAccess(of: id, app: app)
            }
        }
    }

    /// Checks `consent` for a change of `collection` described by `change`.
    ///
    /// - Throws: ``ServiceError/wrongPasscode`` (after the usual delay),
    ///   ``ServiceError/notConfirmed(_:)`` when the person said no or nobody answered in time.
    public func requireConsent(
        _ consent: Consent, in collection: CollectionID, change: String, caller: Caller,
        through prompter: (any Prompter)? = nil
    ) async throws(ServiceError) {
        switch consent {
        case .passcode(let passcode):
            _ = try await masterKey(of: collection, with: .typed(passcode))
        case .confirmation:
            let label = collectionStates[collection]?.fields.label ?? ""
            let reply = await ask(
                .confirmChange(collection: collection, label: label, change: change), caller: caller,
                until: readDeadline(), through: prompter)
            switch AccessDecision.confirmation(reply) {
            case .allowed: break
            case .refused: throw .notConfirmed("the person declined to \(change)")
            case .dismissed:
                throw .notConfirmed(
                    "nobody confirmed: give the collection's passcode (--stdin, --passcode-fd or --ask-passcode) "
                        + "or answer through puffctl agent or pinentry")
            }
        }
        logger.notice(
            "Change that weakens protection agreed",
            metadata: ["collection.id": "\(collection)", "client.name": "\(caller.client.rawValue)"])
    }

    /// How a refused consent or proof is audited: no answer (or a cancelled touch) is `dismissed`;
    /// a no, a wrong passcode, a refused touch or PIN, another security key, or the last slot
    /// `refused`.
    public static func auditResult(of error: any Error) -> AuditResult {
        switch error as? ServiceError {
        case .notConfirmed(let why)? where why.hasPrefix("nobody"): .dismissed
        case .notConfirmed?, .wrongPasscode?, .lastSlot?: .refused
        case .hardware(.cancelled)?: .dismissed
        case .hardware(.denied)?, .hardware(.pinInvalid)?, .hardware(.noCredential)?: .refused
        default: .failed
        }
    }

    /// The label an entry about `change` records: the item's, with the executable a rule is about.
    private func describedLabel(_ label: String, of change: ItemSettingsChange) -> String {
        switch change {
        case .access(let executable, _), .revoke(let executable?): "\(label) (\(executable))"
        case .appAccess(let app, _), .revokeApp(let app): "\(label) (app \(app))"
        case .protect, .revoke(nil): label
        }
    }
}
