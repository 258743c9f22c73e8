// SPDX-License-Identifier: Apache-2.0
public import PuffStore
public import PuffSystem

/// How a secret read ended at the access gate: what an audit log records.
public enum AccessOutcome: Sendable, Equatable {
    /// The secret was released.
    case allowed
    /// The secret was refused, for this reason.
    case refused(AccessRefusal)
    /// A question was asked and nobody answered it (no prompter could reach a person, the
    /// question timed out, the client left): refused, nothing persisted.
    case dismissed
}

/// Why the gate refused a read.
public enum AccessRefusal: String, Sendable, Equatable {
    /// A persisted rule denies the executable this item.
    case deniedByRule = "denied-by-rule"
    /// `[access] mode = "strict"` and no rule allows the executable.
    case unknownExecutable = "unknown-executable"
    /// The person answered "deny" to the question.
    case declined
    /// The item or its collection went away (deleted, locked) while the person was asked.
    case changedMeanwhile = "changed-meanwhile"
    /// The item is an app's portal key, and the caller is sandboxed: only the portal hands keys
    /// to apps (docs/design/sandboxed-apps.md §2.3).
    case portalKey = "portal-key"
}

/// What the gate knows of the contents of a caller's executable.
public enum ExecutableContents: Sendable, Equatable {
    /// `[access] hash_executables` is off: rules match by path alone.
    case notHashed
    /// The digest of the file the caller runs (``ExecutableDigests``).
    case digest([UInt8])
    /// Hashing is on but `/proc/<pid>/exe` could not be read (the process that connected has
    /// exited, its connection kept by a child): whatever runs now is unknown, so an allow bound
    /// to a digest admits nothing (fail closed).
    case unreadable

    /// The digest to keep with a remembered answer; nil when there is none to keep.
    public var digest: [UInt8]? {
        if case .digest(let digest) = self { digest } else { nil }
    }
}

/// The gate's rules as pure functions (no prompts, no state), so a table can test them:
/// a persisted deny refuses first; then the access mode decides (with a question under `ask`);
/// then a protected item is confirmed, every time.
public enum AccessDecision {
    /// What the gate does before any question.
    public enum Plan: Sendable, Equatable {
        /// Refuse at once.
        case refuse(AccessRefusal)
        /// Go on: ask the access question (`ask` mode, no rule), then confirm (protected item).
        case proceed(askAccess: Bool, confirm: Bool)
    }

    /// The rule that applies to a caller: an executable's or an app's.
    public enum Match: Sendable, Equatable {
        case executable(ItemSettings.Rule)
        case app(ItemSettings.AppRule)

        /// Whether the rule lets the caller read the item.
        public var allows: Bool {
            switch self {
            case .executable(let rule): rule.allows
            case .app(let rule): rule.allows
            }
        }
    }

    /// The first step for a caller whose matching rule is `rule` (nil: none matches; see
    /// ``rule(in:caller:contents:)``).
    public static func plan(mode: AccessMode, rule: Match?, isProtected: Bool) -> Plan {
        if let rule, !rule.allows { return .refuse(.deniedByRule) }
        let allowedByRule = rule?.allows == true
        switch mode {
        case .open:
            return .proceed(askAccess: false, confirm: isProtected)
        case .ask:
            return .proceed(askAccess: !allowedByRule, confirm: isProtected)
        case .strict:
            guard allowedByRule else { return .refuse(.unknownExecutable) }
            return .proceed(askAccess: false, confirm: isProtected)
        }
    }

    /// What an answer to the access question means.
    public enum AccessAnswer: Sendable, Equatable {
        /// Go on to the next step; persist an `allow` rule when `remember`.
        case allow(remember: Bool)
        /// Refuse; persist a `deny` rule when `remember`.
        case deny(remember: Bool)
        /// Nobody answered: refuse, persist nothing.
        case dismissed
    }

    /// Reads a reply to ``PromptRequest/Purpose/allowRead(item:label:)``. A prompter that can
    /// only confirm (``PromptReply/confirmed``) allows this read alone; a passcode is no answer.
    public static func accessAnswer(_ reply: PromptReply) -> AccessAnswer {
        switch reply {
        case .access(.once), .confirmed: .allow(remember: false)
        case .access(.always): .allow(remember: true)
        case .access(.deny): .deny(remember: true)
        case .dismissed, .passcode, .typeInstead: .dismissed
        }
    }

    /// Reads a reply to ``PromptRequest/Purpose/confirmRead(item:label:)``: only an explicit
    /// yes releases the secret; "always" allows this read only (protection asks every time).
    public static func confirmation(_ reply: PromptReply) -> AccessOutcome {
        switch reply {
        case .confirmed, .access(.once), .access(.always): .allowed
        case .access(.deny): .refused(.declined)
        case .dismissed, .passcode, .typeInstead: .dismissed
        }
    }

    /// The rule of `settings` that applies to `caller` (design sandboxed-apps.md §3):
    /// - a Flatpak app is matched by its app rule only: its executable is a path in its own
    ///   sandbox (a runtime's `/usr/bin/python3` is not the host's), so no executable rule applies;
    /// - a caller whose sandbox could not be read (``CallerSandbox/unverified(_:)``) could be any
    ///   app or executable: the first deny rule of either kind applies, never an allow (fail closed);
    /// - a host caller is matched by its executable (``rule(in:executable:contents:)``).
    public static func rule(in settings: ItemSettings, caller: Caller, contents: ExecutableContents) -> Match? {
        switch caller.sandbox {
        case .host:
            return rule(in: settings, executable: caller.executable, contents: contents).map(Match.executable)
        case .app(let app, _):
            return settings.appRules.first { $0.app == app }.map(Match.app)
        case .unverified:
            if let rule = settings.rules.first(where: { !$0.allows }) { return .executable(rule) }
            return settings.appRules.first { !$0.allows }.map(Match.app)
        }
    }

    /// The rule of `settings` that applies to a host caller running `executable` with `contents`:
    /// the one for its path, unless it is bound to a digest and the caller's contents are another
    /// (a changed file is a new executable) or could not be read (issue 24 item 9: then a deny
    /// still applies, an allow does not). A caller without an executable matches nothing.
    public static func rule(
        in settings: ItemSettings, executable: String?, contents: ExecutableContents
    ) -> ItemSettings.Rule? {
        guard let executable else { return nil }
        guard let rule = settings.rules.first(where: { $0.executable == executable }) else { return nil }
        guard let ruleDigest = rule.digest else { return rule }
        switch contents {
        case .notHashed: return rule
        case .digest(let digest): return digest == ruleDigest ? rule : nil
        case .unreadable: return rule.allows ? nil : rule
        }
    }

    /// `settings` with `executable`'s rule replaced by one that `allows` (or denies).
    ///
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when the item already keeps
    ///   ``ItemSettings/maxRules`` rules for other executables.
    public static func remembering(
        _ settings: ItemSettings, executable: String, digest: [UInt8]?, allows: Bool
    ) throws(ServiceError) -> ItemSettings {
        var settings = settings
        settings.rules.removeAll { $0.executable == executable }
        guard settings.ruleCount < ItemSettings.maxRules else {
            throw .limitExceeded("an item keeps at most \(ItemSettings.maxRules) access rules (executables and apps)")
        }
        guard executable.utf8.count <= ItemSettings.maxPathBytes, executable.hasPrefix("/") else {
            throw .invalidArgument("an executable must be an absolute path of at most 4096 bytes")
        }
        settings.rules.append(ItemSettings.Rule(executable: executable, digest: digest, allows: allows))
        return settings
    }

    /// `settings` with `app`'s rule replaced by one that `allows` (or denies).
    ///
    /// - Throws: ``ServiceError/limitExceeded(_:)`` when the item already keeps
    ///   ``ItemSettings/maxRules`` rules for other executables and apps.
    public static func remembering(_ settings: ItemSettings, app: AppID, allows: Bool) throws(ServiceError)
        -> ItemSettings
    {
        var settings = settings
        settings.appRules.removeAll { $0.app == app }
        guard settings.ruleCount < ItemSettings.maxRules else {
            throw .limitExceeded("an item keeps at most \(ItemSettings.maxRules) access rules (executables and apps)")
        }
        settings.appRules.append(ItemSettings.AppRule(app: app, allows: allows))
        return settings
    }
}
