// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 28's harness checks itself (docs/design/sandboxed-apps.md §6): a client in ``Sandbox``
/// sees the `.flatpak-info` it was given and reaches the bus only as its proxy allows, and
/// ``PortalHarness`` hands a sandboxed app's id to the Secret backend (a stand-in here, so the
/// check does not wait for puffd's backend).
@Suite(
    .serialized,
    .enabled("bubblewrap cannot build a sandbox here (sandbox.py --probe)") { await Sandbox.canRun() },
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct SandboxHarnessTests {
    @Test func aSandboxedClientSeesItsFlatpakInfoAndTheBusItself() async throws {
        let folder = try TestFolder("sbx")
        let daemon = try await TestDaemon(on: TestBus(socketIn: folder.url))
        let sandbox = Sandbox(app: "org.example.App", folder: folder.url)
        try await ClientDriver.expectPasses(
            "sandbox_check.py", ["org.example.App", "--control", "visible", "--hidden", daemon.home.path],
            environment: daemon.clientEnvironment, wrapper: sandbox.wrapper)
    }

    /// Checked: with the proxy's rules dropped (`--proxy` without `--filter`), io.puff.Control
    /// answers and the case "io.puff.Control is hidden" fails.
    @Test func aProxiedClientReachesOnlyTheNamesItsRulesLetItTalkTo() async throws {
        let folder = try TestFolder("sbx")
        let daemon = try await TestDaemon(on: TestBus(socketIn: folder.url))
        let sandbox = Sandbox(app: "org.example.Other", folder: folder.url, proxy: [Sandbox.talkToSecrets])
        try await ClientDriver.expectPasses(
            "sandbox_check.py", ["org.example.Other", "--control", "hidden", "--hidden", daemon.home.path],
            environment: daemon.clientEnvironment, wrapper: sandbox.wrapper)
    }

    @Test(.enabled(if: PortalHarness.canRun))
    func thePortalHandsTheSecretBackendTheIdOfTheAppBehindTheProxy() async throws {
        let folder = try TestFolder("sbx")
        let bus = try TestBus(socketIn: folder.url)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let backend = try BackgroundProcess(
            ClientDriver.python, [ClientDriver.directory.appendingPathComponent("portal_standin.py").path],
            environment: environment, log: folder.appending("standin.log"))
        try await backend.waitForOwner("org.freedesktop.secrets", on: bus)
        let portalFile = folder.appending("puff.portal")
        try Data(
            "[portal]\nDBusName=org.freedesktop.secrets\nInterfaces=org.freedesktop.impl.portal.Secret\nUseIn=gnome\n"
                .utf8
        ).write(to: portalFile)
        let portal = try await PortalHarness(on: bus, portalFile: portalFile, folder: folder)
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }

        func digest(of app: String) async throws -> String? {
            let sandbox = Sandbox(app: app, folder: folder.url, proxy: Sandbox.flatpakPortalRules)
            let lines = try await ClientDriver.expectOutput(
                "portal_secret.py", ["--expect-response", "0", "--expect-bytes", "64"], environment: environment,
                input: Sandbox.saltInput(salt), wrapper: sandbox.wrapper)
            return lines.first { $0.hasPrefix("digest ") }
        }
        let first = try #require(try await digest(of: "org.example.App"))
        let again = try #require(try await digest(of: "org.example.App"))
        let other = try #require(try await digest(of: "org.example.Other"))
        #expect(first == again)
        #expect(first != other)
        let calls = backend.log.split(separator: "\n").filter { $0.hasPrefix("RetrieveSecret") }
        #expect(
            calls == [
                "RetrieveSecret app_id='org.example.App'", "RetrieveSecret app_id='org.example.App'",
                "RetrieveSecret app_id='org.example.Other'",
            ], "\(portal.log.suffix(2000))")
    }
}
