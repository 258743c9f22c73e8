// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService
import PuffStore

/// The item access methods of `io.puff.Control1` (dbus/io.puff.Control1.xml): protection and
/// per-executable rules, for `puffctl protect`, `unprotect` and `access`. Never a secret. A change
/// that weakens protection needs the person: the `consent` argument's `passcode` (a pipe), or a
/// yes through the prompter chain.
extension SecretInterfaces {
    static func accessMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        let consent = Argument("consent", "a{sv}")
        return [
            itemMethod("SetProtected", in: [.init("item", "o"), .init("protected", "b"), consent]) { call in
                let item = try await context.controlItem(try call.argument(0, \.objectPath))
                try await service.changeItemSettings(
                    .protect(try call.argument(1, \.bool)), of: item, caller: call.caller,
                    consent: try await call.consent(2))
                return []
            },
            itemMethod(
                "SetAccess", in: [.init("item", "o"), .init("executable", "s"), .init("allow", "b"), consent]
            ) { call in
                let item = try await context.controlItem(try call.argument(0, \.objectPath))
                let change = ItemSettingsChange.access(
                    executable: try call.argument(1, \.string), allows: try call.argument(2, \.bool))
                try await service.changeItemSettings(
                    change, of: item, caller: call.caller, consent: try await call.consent(3))
                return []
            },
            itemMethod("RevokeAccess", in: [.init("item", "o"), .init("executable", "s"), consent]) { call in
                let item = try await context.controlItem(try call.argument(0, \.objectPath))
                let executable = try call.argument(1, \.string)
                try await service.changeItemSettings(
                    .revoke(executable: executable.isEmpty ? nil : executable), of: item, caller: call.caller,
                    consent: try await call.consent(2))
                return []
            },
            itemMethod("ListAccess", in: [.init("items", "ao")], out: [.init("entries", "aa{sv}")]) { call in
                guard case .array(_, let paths)? = call.arguments.first else {
                    throw ServiceError.invalidArgument("items must be ao")
                }
                var items: [ItemID] = []
                for path in paths.compactMap(\.objectPath) { items.append(try await context.controlItem(path)) }
                let entries = try await service.accessEntries(paths.isEmpty ? nil : items)
                return [.array(element: "a{sv}", entries.map(\.dbusValue))]
            },
        ]
    }
}

/// A control method about one item: a missing item answers the Secret Service's `NoSuchObject`
/// rather than the control interface's `NoSuchCollection`.
private func itemMethod(
    _ name: MemberName, in inputs: [Argument] = [], out outputs: [Argument] = [],
    _ body: @escaping @Sendable (MethodCall) async throws -> [DBusValue]
) -> Method {
    controlMethod(name, in: inputs, out: outputs) { call in
        do {
            return try await body(call)
        } catch ServiceError.noSuchObject {
            throw DBusError(.noSuchObject, "no such item, or no rule for that executable")
        }
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
    /// `digest` s, hex, "" when the rule holds for any contents).
    var dbusValue: DBusValue {
        let rules = settings.rules.map { rule -> DBusValue in
            .variantDictionary([
                ControlKey.executable: .string(rule.executable), ControlKey.allow: .boolean(rule.allows),
                ControlKey.digest: .string(
                    rule.digest.map { $0.map { String($0, radix: 16).leftPadded(2) }.joined() } ?? ""),
            ])
        }
        return .variantDictionary([
            ControlKey.path: .objectPath(ObjectPaths.path(of: item)), ControlKey.label: .string(label),
            ControlKey.protected: .boolean(settings.isProtected), ControlKey.rules: .array(element: "a{sv}", rules),
        ])
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
