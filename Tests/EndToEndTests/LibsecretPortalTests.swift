// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// libsecret's own portal path against puffd's portal backend (issue 28, "Done when" 3; design
/// §6 item 3): a Flatpak app using `secret_password_store` with `SECRET_BACKEND=file` keeps its
/// items in a file of its own, encrypted with the secret Debian's xdg-desktop-portal fetches from
/// puffd. The app runs behind xdg-dbus-proxy with the rules flatpak gives every app for portals.
@Suite(
    .serialized,
    .enabled("bubblewrap cannot build a sandbox here (sandbox.py --probe)") { await Sandbox.canRun() },
    .enabled(if: PortalHarness.canRun, "xdg-desktop-portal is not installed (make deps)"),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct LibsecretPortalTests {
    static let puffctl = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent()
        .appendingPathComponent("puffctl").path

    /// The app `id` in `folder`, behind the proxy with flatpak's portal rules, using libsecret's
    /// file backend.
    func app(_ id: String, in folder: TestFolder) -> Sandbox {
        Sandbox(
            app: id, folder: folder.url, proxy: Sandbox.flatpakPortalRules, environment: ["SECRET_BACKEND": "file"])
    }

    /// Runs libsecret_portal.py `mode` as `app`, with `value` on its standard input.
    func libsecret(_ mode: String, as app: Sandbox, value: String, daemon: TestDaemon) async throws {
        try await ClientDriver.expectPasses(
            "libsecret_portal.py", [mode], environment: daemon.clientEnvironment, input: Data("\(value)\n".utf8),
            wrapper: app.wrapper)
        #expect(daemon.isRunning, "puffd died during libsecret_portal.py \(mode):\n\(daemon.log.suffix(2000))")
    }

    @Test func anItemStoredThroughThePortalSecretReadsBackOnlyForTheSameApp() async throws {
        let folder = try TestFolder("libsecret")
        let daemon = try await TestDaemon(on: TestBus(socketIn: folder.url))
        let portal = try await PortalHarness(on: daemon.bus, folder: folder)
        let value = "portal-\(UUID().uuidString)"
        let owner = app("org.example.App", in: folder)
        try await libsecret("store", as: owner, value: value, daemon: daemon)
        try await libsecret("matches", as: owner, value: value, daemon: daemon)

        // The same keyring file, read as another app: its portal secret differs, so nothing opens.
        let other = app("org.example.Other", in: folder)
        let keyrings = ".local/share/keyrings"
        try FileManager.default.createDirectory(
            at: other.home.appendingPathComponent(".local/share"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(
            at: owner.home.appendingPathComponent(keyrings), to: other.home.appendingPathComponent(keyrings))
        try await libsecret("absent", as: other, value: value, daemon: daemon)
        #expect(portal.isRunning, "\(portal.log.suffix(2000))")
    }

    @Test func aLockedCollectionWithNobodyToAskCancelsTheStore() async throws {
        let folder = try TestFolder("libsecret")
        let daemon = try await TestDaemon(
            arguments: [
                "--vault", "file", "--kdf", "interactive", "--prompter", "none",
                "--prompt-timeout", String(HangGuard.driver.components.seconds),
            ],
            on: TestBus(socketIn: folder.url))
        let environment = daemon.clientEnvironment
        let initialize = try await ChildProcess.run(
            Self.puffctl, ["init", "--stdin"], environment: environment, input: Data("portal pass\n".utf8))
        #expect(initialize.status == 0, "\(initialize.output)")
        let lock = try await ChildProcess.run(Self.puffctl, ["lock"], environment: environment)
        #expect(lock.status == 0, "\(lock.output)")
        let portal = try await PortalHarness(on: daemon.bus, folder: folder)
        try await libsecret("cancelled", as: app("org.example.App", in: folder), value: "never kept", daemon: daemon)
        #expect(portal.isRunning, "\(portal.log.suffix(2000))")
    }
}
