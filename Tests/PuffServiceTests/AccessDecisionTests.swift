// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffService
import PuffStore
import PuffSystem
import Testing

/// ``AccessDecision/rule(in:caller:contents:)`` for the three kinds of caller (design
/// sandboxed-apps.md §3): a host caller by its executable, a Flatpak app by its app rule only, a
/// caller whose sandbox could not be read by deny rules only.
struct AccessDecisionTests {
    static let python = "/usr/bin/python3"
    static let app = AppID(rawValue: "org.example.App")!
    static let other = AppID(rawValue: "org.example.Other")!

    static func host(_ executable: String = python) -> Caller {
        Caller(ClientID(":1.7"), executable: executable, pid: 7)
    }

    /// An app whose process runs a runtime's `/usr/bin/python3`, as `/proc/PID/exe` names it.
    static func sandboxed(_ app: AppID = app) -> Caller {
        Caller(ClientID(":1.8"), executable: python, pid: 8, sandbox: .app(app, instance: "1234"))
    }

    static let unverified = Caller(ClientID(":1.9"), executable: python, pid: 9, sandbox: .unverified("pid reused"))

    static func executableRule(allows: Bool) -> ItemSettings.Rule {
        ItemSettings.Rule(executable: python, digest: nil, allows: allows)
    }

    @Test func anAppIsNotAllowedByTheHostsRuleForTheExecutableItRuns() {
        let settings = ItemSettings(rules: [Self.executableRule(allows: true)])
        #expect(AccessDecision.rule(in: settings, caller: Self.sandboxed(), contents: .notHashed) == nil)
        #expect(
            AccessDecision.plan(
                mode: .strict, rule: AccessDecision.rule(in: settings, caller: Self.sandboxed(), contents: .notHashed),
                isProtected: false) == .refuse(.unknownExecutable))
        #expect(
            AccessDecision.rule(in: settings, caller: Self.host(), contents: .notHashed)
                == .executable(Self.executableRule(allows: true)))
    }

    @Test func anAppIsNotDeniedByTheHostsRuleForTheExecutableItRunsEither() {
        let settings = ItemSettings(rules: [Self.executableRule(allows: false)])
        #expect(AccessDecision.rule(in: settings, caller: Self.sandboxed(), contents: .notHashed) == nil)
    }

    @Test func anAppIsMatchedByItsOwnAppRuleAndNoOtherAppsRule() {
        let settings = ItemSettings(appRules: [
            .init(app: Self.other, allows: false), .init(app: Self.app, allows: true),
        ])
        #expect(
            AccessDecision.rule(in: settings, caller: Self.sandboxed(), contents: .notHashed)
                == .app(.init(app: Self.app, allows: true)))
        #expect(
            AccessDecision.rule(in: settings, caller: Self.sandboxed(Self.other), contents: .notHashed)?.allows == false
        )
        let third = AppID(rawValue: "org.example.Third")!
        #expect(AccessDecision.rule(in: settings, caller: Self.sandboxed(third), contents: .notHashed) == nil)
    }

    @Test func aHostCallerIsNeverMatchedByAnAppRule() {
        let settings = ItemSettings(appRules: [.init(app: Self.app, allows: false)])
        #expect(AccessDecision.rule(in: settings, caller: Self.host(), contents: .notHashed) == nil)
    }

    @Test func anUnverifiedCallerDoesNotEscapeAnAppsDenyRule() {
        let settings = ItemSettings(appRules: [.init(app: Self.app, allows: false)])
        let rule = AccessDecision.rule(in: settings, caller: Self.unverified, contents: .notHashed)
        #expect(rule == .app(.init(app: Self.app, allows: false)))
        #expect(AccessDecision.plan(mode: .open, rule: rule, isProtected: false) == .refuse(.deniedByRule))
    }

    @Test func anUnverifiedCallerMeetsAnExecutablesDenyRuleWhateverItRuns() {
        let settings = ItemSettings(
            rules: [
                .init(executable: "/usr/bin/secret-tool", digest: [UInt8](repeating: 1, count: 32), allows: false)
            ])
        #expect(
            AccessDecision.rule(in: settings, caller: Self.unverified, contents: .notHashed)?.allows == false)
    }

    @Test func anUnverifiedCallerIsAllowedByNoRule() {
        let settings = ItemSettings(
            rules: [Self.executableRule(allows: true)], appRules: [.init(app: Self.app, allows: true)])
        #expect(AccessDecision.rule(in: settings, caller: Self.unverified, contents: .notHashed) == nil)
        #expect(
            AccessDecision.plan(
                mode: .strict, rule: AccessDecision.rule(in: settings, caller: Self.unverified, contents: .notHashed),
                isProtected: false) == .refuse(.unknownExecutable))
    }

    @Test func theSixtyFourRuleLimitCountsExecutablesAndAppsTogether() throws {
        let rules = (0..<40).map { ItemSettings.Rule(executable: "/usr/bin/t\($0)", digest: nil, allows: true) }
        let apps = (0..<24).map { ItemSettings.AppRule(app: AppID(rawValue: "org.example.A\($0)")!, allows: false) }
        let full = ItemSettings(rules: rules, appRules: apps)
        #expect(throws: ServiceError.limitExceeded("an item keeps at most 64 access rules (executables and apps)")) {
            try AccessDecision.remembering(full, app: Self.app, allows: true)
        }
        #expect(throws: ServiceError.limitExceeded("an item keeps at most 64 access rules (executables and apps)")) {
            try AccessDecision.remembering(full, executable: "/usr/bin/new", digest: nil, allows: true)
        }
        // Replacing an app's own rule does not grow the list.
        let replaced = try AccessDecision.remembering(full, app: apps[3].app, allows: true)
        #expect(replaced.ruleCount == 64)
        #expect(replaced.appRules.last == .init(app: apps[3].app, allows: true))
    }

    @Test func aSandboxedCallersExecutableIsNeverHashed() async {
        let hashing = AccessGate(AccessConfiguration(mode: .ask, hashesExecutables: true))
        let host = Caller(ClientID(":1.7"), executable: "/usr/bin/true", pid: UInt32(getpid()))
        #expect(await hashing.contents(of: host, for: ItemSettings()) != .unreadable)
        #expect(await hashing.contents(of: Self.sandboxed(), for: ItemSettings()) == .unreadable)
        #expect(await hashing.contents(of: Self.unverified, for: ItemSettings()) == .unreadable)
    }
}
