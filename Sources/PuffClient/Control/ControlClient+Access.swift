public import PuffCrypto
// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
import PuffProtocol

/// One item's access settings as `ListAccess` returns them (dbus/io.puff.Control1.xml).
public struct AccessEntry: Sendable, Equatable, Encodable {
    /// One executable's or app's persisted answer.
    public struct Rule: Sendable, Equatable, Encodable {
        /// The executable's path; empty for an app's rule.
        public var executable: String
        /// `"allow"` or `"deny"`.
        public var decision: String
        /// Hex BLAKE2b-256 of the executable's contents; nil when the rule holds for any contents.
        public var digest: String?
        /// The Flatpak app id of an app's rule; nil for an executable's.
        public var app: String?
    }

    public var path: String
    public var label: String
    public var protected: Bool
    public var rules: [Rule]

    /// Reads the `aa{sv}` of `ListAccess`.
    static func list(reply arguments: [DBusValue]) throws(ClientError) -> [AccessEntry] {
        guard arguments.count == 1, case .array(_, let entries) = arguments[0] else {
            throw .unexpectedReply(member: "ListAccess")
        }
        var list: [AccessEntry] = []
        for entry in entries {
            guard let dictionary = entry.variantDictionary else { throw .unexpectedReply(member: "ListAccess") }
            let fields = ReplyFields(dictionary, member: "ListAccess")
            guard let path = try fields.objectPath(ControlKey.path) else {
                throw .unexpectedReply(member: "ListAccess")
            }
            var rules: [Rule] = []
            for rule in try fields.array(ControlKey.rules) ?? [] {
                guard let ruleFields = rule.variantDictionary.map({ ReplyFields($0, member: "ListAccess") }),
                    let executable = try ruleFields.string(ControlKey.executable),
                    let allows = try ruleFields.bool(ControlKey.allow)
                else { throw .unexpectedReply(member: "ListAccess") }
                let digest = try ruleFields.string(ControlKey.digest) ?? ""
                // A puffd from before app rules sends no `app`.
                let app = try ruleFields.string(ControlKey.app) ?? ""
                rules.append(
                    Rule(
                        executable: executable, decision: allows ? "allow" : "deny",
                        digest: digest.isEmpty ? nil : digest, app: app.isEmpty ? nil : app))
            }
            list.append(
                AccessEntry(
                    path: path, label: try fields.string(ControlKey.label) ?? "",
                    protected: try fields.bool(ControlKey.protected) ?? false,
                    rules: rules))
        }
        return list
    }
}

extension ControlClient {
    /// `SetProtected`: every read of the item's secret asks for a confirmation, or no longer.
    /// Lifting protection needs the collection's `passcode`, or (nil) the person's yes through
    /// puffd's prompter.
    public func setProtected(_ isProtected: Bool, item path: String, passcode: SecureBytes? = nil)
        async throws(ClientError)
    {
        _ = try await call(
            .setProtected, [.objectPath(try Self.path(path)), .boolean(isProtected), try Self.consent(passcode)],
            timeout: Self.passcodeCallTimeout)
    }

    /// `SetAccess`: persists an allow or deny rule for `executable` on the item; an allow needs
    /// the person, as ``setProtected(_:item:passcode:)`` says.
    public func setAccess(_ allows: Bool, for executable: String, item path: String, passcode: SecureBytes? = nil)
        async throws(ClientError)
    {
        _ = try await call(
            .setAccess,
            [.objectPath(try Self.path(path)), .string(executable), .boolean(allows), try Self.consent(passcode)],
            timeout: Self.passcodeCallTimeout)
    }

    /// `RevokeAccess`: forgets `executable`'s rule on the item, or every rule when nil; forgetting
    /// a deny rule needs the person, as ``setProtected(_:item:passcode:)`` says.
    public func revokeAccess(item path: String, executable: String?, passcode: SecureBytes? = nil)
        async throws(ClientError)
    {
        _ = try await call(
            .revokeAccess, [.objectPath(try Self.path(path)), .string(executable ?? ""), try Self.consent(passcode)],
            timeout: Self.passcodeCallTimeout)
    }

    /// `SetAppAccess`: persists an allow or deny rule for the Flatpak app `app` on the item; an
    /// allow needs the person, as ``setProtected(_:item:passcode:)`` says.
    public func setAppAccess(_ allows: Bool, for app: String, item path: String, passcode: SecureBytes? = nil)
        async throws(ClientError)
    {
        _ = try await call(
            .setAppAccess,
            [.objectPath(try Self.path(path)), .string(app), .boolean(allows), try Self.consent(passcode)],
            timeout: Self.passcodeCallTimeout)
    }

    /// `RevokeAppAccess`: forgets `app`'s rule on the item; forgetting a deny rule needs the
    /// person, as ``setProtected(_:item:passcode:)`` says.
    public func revokeAppAccess(item path: String, app: String, passcode: SecureBytes? = nil) async throws(ClientError)
    {
        _ = try await call(
            .revokeAppAccess, [.objectPath(try Self.path(path)), .string(app), try Self.consent(passcode)],
            timeout: Self.passcodeCallTimeout)
    }

    /// The `consent` argument (`a{sv}`): the passcode's pipe under `passcode`, or nothing so that
    /// puffd asks the person through its prompter.
    static func consent(_ passcode: SecureBytes?) throws(ClientError) -> DBusValue {
        guard let passcode else { return .dictionary(key: "s", value: "v", []) }
        let pipe = try PasscodePipe.readEnd(carrying: passcode)
        return .dictionary(key: "s", value: "v", [.init(.string(ControlKey.passcode), .variant(.unixFD(pipe)))])
    }

    /// `ListAccess`: the settings of `paths`, or of every item that has any when empty.
    public func listAccess(_ paths: [String]) async throws(ClientError) -> [AccessEntry] {
        var items: [DBusValue] = []
        for path in paths { items.append(.objectPath(try Self.path(path))) }
        return try AccessEntry.list(
            reply: try await call(.listAccess, [.array(element: "o", items)]))
    }

    private static func path(_ text: String) throws(ClientError) -> ObjectPath {
        guard let path = ObjectPath(text) else { throw .noSuchItem(text) }
        return path
    }
}
