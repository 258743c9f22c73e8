// SPDX-License-Identifier: Apache-2.0
package import PuffStore
import PuffSystem

/// Who may read which secret (issue 16), apart from the service: the vault's access rules, the
/// cache of callers' executables' digests, and every decision that needs no live state.
/// ``SecretService`` owns one and asks it at each step of a read (`admit`); what can change while
/// a question is open (the item, its collection, its settings) the service looks up itself.
package struct AccessGate: Sendable {
    /// Who may read secrets, and whether executables are hashed.
    package let rules: AccessConfiguration
    /// Callers' executables' content digests, cached.
    package let digests = ExecutableDigests()

    package init(_ rules: AccessConfiguration) {
        self.rules = rules
    }

    /// Whether a read of an item with `settings` is admitted at once, with nothing to hash, ask
    /// or remember: mode `open` (or the caller's own portal key, `ownKey`) and no settings on the item.
    package func admitsAtOnce(_ settings: ItemSettings, ownKey: Bool = false) -> Bool {
        (ownKey || rules.mode == .open) && settings.isEmpty
    }

    /// Whether a read of an item with `settings` (nil: none readable) may wait for a digest, a
    /// question or a write before it is answered.
    package func mayWait(_ settings: ItemSettings?) -> Bool {
        rules.mode != .open || !(settings?.isEmpty ?? true)
    }

    /// When a read starting at `now` must have its answers: the question timeout, or the prompt
    /// timeout when that is shorter.
    package func deadline(from now: Duration, promptTimeout: Duration) -> Duration {
        now + min(rules.questionTimeout, promptTimeout)
    }

    /// Whether the caller's executable is hashed for a read of an item with `settings`: only when
    /// rules bind to contents and a rule or a decision could use the digest.
    package func hashes(_ caller: Caller, for settings: ItemSettings) -> Bool {
        rules.hashesExecutables && (rules.mode != .open || !settings.rules.isEmpty) && caller.executable != nil
    }

    /// The caller's executable's contents, hashed off the actor when ``hashes(_:for:)``; a caller
    /// whose process cannot be read (or whose pid the bus did not give) is
    /// ``ExecutableContents/unreadable``, and so is a sandboxed or unverified one, unhashed: its
    /// executable is a path in its own mount namespace (xdg-dbus-proxy's, for a proxied app), so
    /// no digest of it may admit it (docs/design/sandboxed-apps.md §3).
    package func contents(of caller: Caller, for settings: ItemSettings) async -> ExecutableContents {
        guard hashes(caller, for: settings) else { return .notHashed }
        guard caller.sandbox == .host, let pid = caller.pid else { return .unreadable }
        let digests = self.digests
        return await BlockingWork.run { digests.digest(ofProcess: pid) }.map { .digest($0) } ?? .unreadable
    }

    /// What a read of an item with `settings` by `caller` does: refuse, or go on asking whether
    /// to allow it and confirming a protected item. An app's own portal key (`ownKey`) is read as
    /// in mode `open`: the key is the app's by construction, and `strict` would refuse every app;
    /// a deny rule still refuses and protection still confirms.
    package func plan(
        _ settings: ItemSettings, caller: Caller, contents: ExecutableContents, ownKey: Bool = false
    ) -> AccessDecision.Plan {
        let rule = AccessDecision.rule(in: settings, caller: caller, contents: contents)
        return AccessDecision.plan(mode: ownKey ? .open : rules.mode, rule: rule, isProtected: settings.isProtected)
    }

    /// The digest a rule for `executable` is bound to: nil when contents are not hashed.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` when hashing is on and the file cannot be read.
    package func digest(forRuleOf executable: String) async throws(ServiceError) -> [UInt8]? {
        guard rules.hashesExecutables else { return nil }
        let digests = self.digests
        guard let digest = await BlockingWork.run({ digests.digest(ofFile: executable) }) else {
            throw .invalidArgument("the executable cannot be read to hash it")
        }
        return digest
    }
}
