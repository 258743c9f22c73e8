// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A hostile client of the same user against io.puff.Control1 (issue 24 item 2), with the built
/// puffd and puffctl, xdg-dbus-proxy as Flatpak runs it, and a dbus-python client
/// (Clients/control_attack.py).
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ControlConsentTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-consent-\(UUID().uuidString)")
    static let item = "/org/freedesktop/secrets/collection/login/1"

    func daemon(prompters: String) async throws -> TestDaemon {
        try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive", "--prompter",
                prompters,
            ])
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data((input ?? "").utf8))
    }

    /// A vault with one protected item that denies `/usr/bin/denied`.
    func prepare(_ puffd: TestDaemon) async throws {
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=mail alice", "service", "consent-e2e"],
            environment: puffd.clientEnvironment, input: Data("consent-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        #expect(try await puffctl(puffd, ["protect", Self.item]).status == 0)
        #expect(try await puffctl(puffd, ["access", "deny", Self.item, "/usr/bin/denied"]).status == 0)
    }

    /// `puffctl access list --json`'s entry for the item: (protected, [executable: decision]).
    func settings(_ puffd: TestDaemon) async throws -> (Bool, [String: String]) {
        let list = try await puffctl(puffd, ["access", "list", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        let entry = try #require(entries.first, "\(list.output)")
        let rules = (entry["rules"] as? [[String: Any]] ?? []).map {
            ($0["executable"] as? String ?? "", $0["decision"] as? String ?? "")
        }
        return (entry["protected"] as? Bool ?? false, Dictionary(rules) { $1 })
    }

    /// `puffctl audit --json`'s entries as (action, result), oldest first.
    func audited(_ puffd: TestDaemon) async throws -> [[String]] {
        let audit = try await puffctl(puffd, ["audit", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]], "\(audit.output)")
        return entries.map { [$0["action"] as? String ?? "", $0["result"] as? String ?? ""] }
    }

    @Test func aClientBehindXdgDbusProxyWithTalkToTheSecretServiceCannotReachControl() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let puffd = try await TestDaemon()
        let socket = folder.appendingPathComponent("proxy").path
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-dbus-proxy")
        proxy.arguments = [puffd.bus.address, socket, "--filter", "--talk=org.freedesktop.secrets"]
        // Not the runner's output: a proxy left behind by a crashed run would hold that pipe open
        // and `swift test` would wait for its end forever.
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        // SIGKILL: the proxy inherits the test runner's blocked signals and outlives a SIGTERM.
        defer {
            kill(proxy.processIdentifier, SIGKILL)
            proxy.waitUntilExit()
        }
        // A named limit, not a budget: the proxy makes its socket before it serves.
        let listening = await poll(limit: HangGuard.step, every: .milliseconds(50)) {
            FileManager.default.fileExists(atPath: socket)
        }
        try #require(listening, "xdg-dbus-proxy made no socket")
        var environment = puffd.clientEnvironment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        let passed = try await ClientDriver.expectPasses("control_attack.py", ["proxy"], environment: environment)
        #expect(passed == 5)
    }

    @Test func weakeningProtectionWithNobodyToAskIsRefusedAuditedAndLeavesItInPlace() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(prompters: "none")
        try await prepare(puffd)
        let passed = try await ClientDriver.expectPasses("control_attack.py", ["consent", Self.item], against: puffd)
        #expect(passed == 10)
        let (protected, rules) = try await settings(puffd)
        #expect(protected, "protection stays")
        #expect(rules == ["/usr/bin/denied": "deny"])
        // puffctl itself: no prompter, no passcode: refused; with the passcode: done.
        let refused = try await puffctl(puffd, ["unprotect", Self.item])
        #expect(refused.status != 0)
        #expect(refused.output.contains("nobody confirmed"), "\(refused.output)")
        let done = try await puffctl(puffd, ["unprotect", Self.item, "--stdin"], input: "right pass\n")
        #expect(done.status == 0, "\(done.output)")
        #expect(try await settings(puffd).0 == false)
        let entries = try await audited(puffd)
        #expect(
            entries.filter { $0[0] != "create" } == [
                ["protect", "allowed"], ["access-deny", "allowed"],
                ["unprotect", "dismissed"], ["access-allow", "dismissed"], ["access-revoke", "dismissed"],
                ["access-revoke", "dismissed"], ["unprotect", "refused"], ["export", "dismissed"],
                ["unprotect", "dismissed"], ["unprotect", "allowed"],
            ], "\(entries)")
    }

    @Test func aSecondAgentDoesNotTakeOverAndCannotConfirmItsOwnReads() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(prompters: "agent,none")
        try await prepare(puffd)
        let passed = try await ClientDriver.expectPasses("control_attack.py", ["agents", Self.item], against: puffd)
        #expect(passed == 3)
        let entries = try await audited(puffd)
        #expect(entries.filter { $0[0] == "agent-register" }.map { $0[1] } == ["allowed", "refused"], "\(entries)")
        #expect(try await settings(puffd).0, "protection stays")
    }
}
