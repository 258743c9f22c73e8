// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 28 item 2 with the built puffd and puffctl: apps granted `--talk=org.freedesktop.secrets`
/// reach puffd through a real xdg-dbus-proxy run in a bubblewrap sandbox carrying their
/// `.flatpak-info`, as flatpak runs it (``Sandbox``). The bus names the proxy's pid for every such
/// app; puffd tells them apart by the app id in the proxy's root, and the audit log shows it.
@Suite(
    .serialized,
    .enabled("bubblewrap cannot build a sandbox here (sandbox.py --probe)") { await Sandbox.canRun() },
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct SandboxIdentityFlowTests {
    static let secret = "sandbox-identity-s3cret"
    static let proxy = "/usr/bin/xdg-dbus-proxy"

    /// puffd on a path-socket bus in `folder`, a vault with one item stored by secret-tool.
    func daemon(in folder: TestFolder) async throws -> TestDaemon {
        let puffd = try await TestDaemon(
            arguments: ["--data-dir", folder.appending("vault").path, "--kdf", "interactive"],
            on: TestBus(socketIn: folder.url))
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "identity pass\n").status == 0)
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=Shared", "service", "identity-e2e"],
            environment: puffd.clientEnvironment, input: Data(Self.secret.utf8))
        #expect(store.status == 0, "\(store.output)")
        return puffd
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    /// access_read.py in `app`'s proxied sandbox: its JSON verdict (found, matches, error).
    func read(as app: String, in folder: TestFolder, _ puffd: TestDaemon) async throws -> [String: Any] {
        let sandbox = Sandbox(
            app: app, folder: folder.url, proxy: [Sandbox.talkToSecrets], environment: ["EXPECTED_SECRET": Self.secret])
        let client = ClientDriver.directory.appendingPathComponent("access_read.py").path
        let words = sandbox.wrapper + [ClientDriver.python, client, "service", "identity-e2e"]
        let result = try await ChildProcess.run(
            words[0], Array(words.dropFirst()), environment: puffd.clientEnvironment, timeout: HangGuard.driver)
        #expect(result.status == 0, "\(result.output)")
        let line = result.output.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(result.output)")
    }

    /// Checked: with `CallerDirectory` reading no sandbox (every context `.host`), both reads are
    /// logged with no `app` and the same executable, and this test fails.
    @Test func twoProxiedAppsReadingOneItemAreAuditedAsTheirAppsViaTheProxy() async throws {
        let folder = try TestFolder("ident")
        let puffd = try await daemon(in: folder)
        for app in ["org.example.App", "org.example.Other"] {
            let verdict = try await read(as: app, in: folder, puffd)
            #expect(verdict["found"] as? Bool == true && verdict["matches"] as? Bool == true, "\(app): \(verdict)")
        }

        let audit = try await puffctl(puffd, ["audit", "--json"])
        #expect(!audit.output.contains(Self.secret), "puffctl audit printed the secret")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any])
        let reads = (object["entries"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "read" }
        #expect(reads.map { $0["app"] as? String } == ["org.example.App", "org.example.Other"], "\(audit.output)")
        #expect(reads.map { $0["executable"] as? String } == [Self.proxy, Self.proxy])
        // Two proxies, two connections.
        #expect(Set(reads.compactMap { $0["client"] as? String }).count == 2)

        let table = try await puffctl(puffd, ["audit"])
        #expect(table.output.contains("org.example.App (via /usr/bin/xdg-dbus-proxy)"), "\(table.output)")
        #expect(table.output.contains("org.example.Other (via /usr/bin/xdg-dbus-proxy)"), "\(table.output)")
        // secret-tool's own store, on the host, names no app.
        let creates = (object["entries"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "create" }
        #expect(creates.count == 1 && creates.first?["app"] == nil)
    }

    /// Issue 28 item 3: a deny rule for one app id refuses that app and serves another, though
    /// both reach puffd through the same executable (the proxy); `access list` shows the rule.
    @Test func anAppDenyRuleRefusesThatProxiedAppWhileAnotherIsServed() async throws {
        let folder = try TestFolder("ident")
        let puffd = try await daemon(in: folder)
        let item = "/org/freedesktop/secrets/collection/login/1"
        let denied = try await puffctl(puffd, ["access", "deny", item, "--app", "org.example.App"])
        #expect(denied.status == 0, "\(denied.output)")
        let listed = try await puffctl(puffd, ["access", "list"])
        #expect(listed.output.contains("app org.example.App"), "\(listed.output)")

        let app = try await read(as: "org.example.App", in: folder, puffd)
        #expect(app["found"] as? Bool == true && app["matches"] as? Bool == false, "\(app)")
        #expect(app["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(app)")
        let other = try await read(as: "org.example.Other", in: folder, puffd)
        #expect(other["matches"] as? Bool == true && other["error"] as? String == "", "\(other)")
    }

    /// control_attack.py `proxy`, run inside the app's sandbox behind its proxy: io.puff.Control is
    /// ServiceUnknown and the control interface is no object on org.freedesktop.secrets.
    @Test func talkingToTheSecretServiceFromASandboxDoesNotReachTheControlInterface() async throws {
        let folder = try TestFolder("ident")
        let puffd = try await TestDaemon(on: TestBus(socketIn: folder.url))
        let sandbox = Sandbox(app: "org.example.App", folder: folder.url, proxy: [Sandbox.talkToSecrets])
        let passed = try await ClientDriver.expectPasses(
            "control_attack.py", ["proxy"], environment: puffd.clientEnvironment, wrapper: sandbox.wrapper)
        #expect(passed == 5)
    }
}
