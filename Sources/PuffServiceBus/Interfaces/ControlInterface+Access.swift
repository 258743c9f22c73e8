// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore
import PuffSystem

/// The item access methods of `io.puff.Control1` (dbus/io.puff.Control1.xml): protection and
/// per-executable and per-app rules, for `puffctl protect`, `unprotect` and `access`. Never a secret. A change
/// that weakens protection needs the person: the `consent` argument's `passcode` (a pipe), or a
/// yes through the prompter chain.
extension SecretInterfaces {
    static func accessMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        let consent = Input<[String: DBusValue]>.variantDictionary("consent")
        return [
            controlMethod(.setProtected, in: .objectPath("item"), .bool("protected"), consent) {
                call, path, protected, consent in
                try await itemCall {
                    try await service.changeItemSettings(
                        .protect(protected), of: try await context.controlItem(path), caller: call.caller,
                        consent: try await call.consent(consent))
                }
                return []
            },
            controlMethod(.setAccess, in: .objectPath("item"), .string("executable"), .bool("allow"), consent) {
                call, path, executable, allows, consent in
                try await itemCall {
                    try await service.changeItemSettings(
                        .access(executable: executable, allows: allows), of: try await context.controlItem(path),
                        caller: call.caller, consent: try await call.consent(consent))
                }
                return []
            },
            controlMethod(.revokeAccess, in: .objectPath("item"), .string("executable"), consent) {
                call, path, executable, consent in
                try await itemCall {
                    try await service.changeItemSettings(
                        .revoke(executable: executable.isEmpty ? nil : executable),
                        of: try await context.controlItem(path), caller: call.caller,
                        consent: try await call.consent(consent))
                }
                return []
            },
            controlMethod(.setAppAccess, in: .objectPath("item"), .string("app"), .bool("allow"), consent) {
                call, path, app, allows, consent in
                let app = try appID(app)
                try await itemCall {
                    try await service.changeItemSettings(
                        .appAccess(app: app, allows: allows), of: try await context.controlItem(path),
                        caller: call.caller, consent: try await call.consent(consent))
                }
                return []
            },
            controlMethod(.revokeAppAccess, in: .objectPath("item"), .string("app"), consent) {
                call, path, app, consent in
                let app = try appID(app)
                try await itemCall {
                    try await service.changeItemSettings(
                        .revokeApp(app), of: try await context.controlItem(path), caller: call.caller,
                        consent: try await call.consent(consent))
                }
                return []
            },
            controlMethod(.listAccess, in: .objectPaths("items")) { call, paths in
                var items: [ItemID] = []
                for path in paths { items.append(try await context.controlItem(path)) }
                let entries = try await itemCall { try await service.accessEntries(paths.isEmpty ? nil : items) }
                return [.array(element: "a{sv}", entries.map(\.dbusValue))]
            },
        ]
    }
}

/// `name` as an application id, or the call's `InvalidArgs`.
private func appID(_ name: String) throws(DBusError) -> AppID {
    guard let app = AppID(rawValue: name) else {
        throw DBusError(
            .invalidArgs,
            "not a Flatpak application id: at least three dot-separated elements of letters, digits, _ and -, "
                + "at most 255 bytes (e.g. org.example.App)")
    }
    return app
}

/// Runs a control call about one item: a missing item answers the Secret Service's `NoSuchObject`
/// rather than the control interface's `NoSuchCollection`.
private func itemCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch ServiceError.noSuchObject {
        throw DBusError(.noSuchObject, "no such item, or no rule for that executable or app")
    }
}

extension BusContext {
    /// The item at `path` for a control call.
    func controlItem(_ path: ObjectPath) async throws(DBusError) -> ItemID {
        guard let item = await existingItem(at: path) else { throw DBusError(.noSuchObject, "no such item") }
        return item
    }
}

extension ItemAccessEntry {
    /// `path` (o), `label` (s), `protected` (b), `rules` (aa{sv}: `executable` s, `allow` b,
    /// `digest` s, hex, "" when the rule holds for any contents; `app` s, "" for an executable's
    /// rule): executables' rules, then apps'.
    var dbusValue: DBusValue {
        let rules = settings.rules.map { rule -> DBusValue in
            .variantDictionary([
                ControlKey.executable: .string(rule.executable), ControlKey.allow: .boolean(rule.allows),
                ControlKey.digest: .string(
                    rule.digest.map { $0.map { String($0, radix: 16).leftPadded(2) }.joined() } ?? ""),
                ControlKey.app: .string(""),
            ])
        }
        let appRules = settings.appRules.map { rule -> DBusValue in
            .variantDictionary([
                ControlKey.executable: .string(""), ControlKey.allow: .boolean(rule.allows),
                ControlKey.digest: .string(""), ControlKey.app: .string(rule.app.rawValue),
            ])
        }
        return .variantDictionary([
            ControlKey.path: .objectPath(ObjectPaths.path(of: item)), ControlKey.label: .string(label),
            ControlKey.protected: .boolean(settings.isProtected),
            ControlKey.rules: .array(element: "a{sv}", rules + appRules),
        ])
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
