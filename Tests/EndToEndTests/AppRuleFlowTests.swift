// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Rules by Flatpak app id (issue 28 item 3) through the built puffd and puffctl on a private bus:
/// `puffctl access allow|deny|revoke ITEM --app ID`, kept across a restart, listed, audited, and
/// an allow needing the person as every weakening change does.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct AppRuleFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-apprule-\(UUID().uuidString)")
    static let item = "/org/freedesktop/secrets/collection/login/1"

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive", "--prompter", "none",
            ])
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data((input ?? "").utf8))
    }

    /// `puffctl access list --json`'s rules of the item as `[app: decision]`, and its executables' count.
    func appRules(_ puffd: TestDaemon) async throws -> (apps: [String: String], executables: Int) {
        let list = try await puffctl(puffd, ["access", "list", "--json", Self.item])
        #expect(list.status == 0, "\(list.output)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        let rules = try #require(entries.first?["rules"] as? [[String: Any]], "\(list.output)")
        var apps: [String: String] = [:]
        var executables = 0
        for rule in rules {
            if let app = rule["app"] as? String {
                apps[app] = rule["decision"] as? String ?? ""
            } else {
                executables += 1
            }
        }
        return (apps, executables)
    }

    /// `puffctl audit --json`'s access entries as (action, result, label).
    func audited(_ puffd: TestDaemon) async throws -> [[String]] {
        let audit = try await puffctl(puffd, ["audit", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]], "\(audit.output)")
        return entries.filter { ($0["action"] as? String ?? "").hasPrefix("access-") }.map {
            [$0["action"] as? String ?? "", $0["result"] as? String ?? "", $0["label"] as? String ?? ""]
        }
    }

    @Test func anAppRuleIsSetListedKeptAcrossARestartAndRevokedWithConsentForAnAllow() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let puffd = try await daemon()
            #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
            let store = try await ChildProcess.run(
                "/usr/bin/secret-tool", ["store", "--label=mail alice", "service", "app-rule-e2e"],
                environment: puffd.clientEnvironment, input: Data("app-rule-secret".utf8))
            #expect(store.status == 0, "\(store.output)")

            let denied = try await puffctl(puffd, ["access", "deny", Self.item, "--app", "org.example.App"])
            #expect(denied.status == 0, "\(denied.output)")
            #expect(denied.output.contains("denied app org.example.App"), "\(denied.output)")
            #expect(try await puffctl(puffd, ["access", "deny", Self.item, "/usr/bin/denied"]).status == 0)
            // An allow lets more reads through: with nobody to ask and no passcode, refused.
            let unconfirmed = try await puffctl(puffd, ["access", "allow", Self.item, "--app", "org.example.Other"])
            #expect(unconfirmed.status != 0)
            #expect(unconfirmed.output.contains("nobody confirmed"), "\(unconfirmed.output)")
            let allowed = try await puffctl(
                puffd, ["access", "allow", Self.item, "--app", "org.example.Other", "--stdin"], input: "right pass\n")
            #expect(allowed.status == 0, "\(allowed.output)")

            let text = try await puffctl(puffd, ["access", "list"])
            #expect(text.output.contains("CALLER"), "\(text.output)")
            #expect(text.output.contains("app org.example.App"), "\(text.output)")
            #expect(text.output.contains("/usr/bin/denied"), "\(text.output)")
            #expect(try await appRules(puffd).apps == ["org.example.App": "deny", "org.example.Other": "allow"])
            _ = await puffd.terminate()
        }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        let kept = try await appRules(puffd)
        #expect(kept.apps == ["org.example.App": "deny", "org.example.Other": "allow"])
        #expect(kept.executables == 1)

        // Forgetting a deny lets more through too.
        let unconfirmed = try await puffctl(puffd, ["access", "revoke", Self.item, "--app", "org.example.App"])
        #expect(unconfirmed.status != 0, "\(unconfirmed.output)")
        let revoked = try await puffctl(
            puffd, ["access", "revoke", Self.item, "--app", "org.example.App", "--stdin"], input: "right pass\n")
        #expect(revoked.status == 0, "\(revoked.output)")
        #expect(try await appRules(puffd).apps == ["org.example.Other": "allow"])
        let missing = try await puffctl(
            puffd, ["access", "revoke", Self.item, "--app", "org.example.App", "--stdin"], input: "right pass\n")
        #expect(missing.status != 0, "\(missing.output)")

        #expect(
            try await audited(puffd) == [
                ["access-deny", "allowed", "mail alice (app org.example.App)"],
                ["access-deny", "allowed", "mail alice (/usr/bin/denied)"],
                ["access-allow", "dismissed", "mail alice (app org.example.Other)"],
                ["access-allow", "allowed", "mail alice (app org.example.Other)"],
                ["access-revoke", "dismissed", "mail alice (app org.example.App)"],
                ["access-revoke", "allowed", "mail alice (app org.example.App)"],
                ["access-revoke", "failed", "mail alice (app org.example.App)"],
            ])
    }

    @Test func anAppWithAnExecutableOrAnInvalidIdIsAUsageError() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        let both = try await puffctl(puffd, ["access", "deny", Self.item, "/usr/bin/tool", "--app", "org.example.App"])
        #expect(both.status == 1)
        #expect(both.output.contains("name either an EXECUTABLE or --app ID, not both"), "\(both.output)")
        for bad in ["org.example", "org.example.1App", "org.example.App-", "org..App"] {
            let refused = try await puffctl(puffd, ["access", "deny", Self.item, "--app", bad])
            #expect(refused.status == 1)
            #expect(refused.output.contains("--app \(bad) is not a Flatpak application id"), "\(refused.output)")
        }
    }
}
