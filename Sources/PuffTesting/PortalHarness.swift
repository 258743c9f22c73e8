// SPDX-License-Identifier: Apache-2.0
public import Foundation

// Usage (issue 28; docs/design/sandboxed-apps.md §6): start puffd first, then the portal. At
// start-up the portal reads the backend's properties, which would D-Bus-activate a backend that
// is not running (F3); the test bus activates nothing, so the portal would run without it.
//
//     let folder = try TestFolder("portal")
//     let daemon = try await TestDaemon(on: TestBus(socketIn: folder.url))
//     let portal = try await PortalHarness(on: daemon.bus, folder: folder)
//     ... sandboxed clients call org.freedesktop.portal.Secret (Sandbox.swift) ...
//     await portal.stop()            // or let it go: released, it is killed
//
// `portalFile:` defaults to the repository's dbus/puff.portal; a test may write its own.
// `portal.log` holds the portal's own output (`--verbose`) for failure messages.

/// Debian's xdg-desktop-portal (1.16) on a ``TestBus``, told to read `.portal` files only from a
/// folder of the test's holding one file (`XDG_DESKTOP_PORTAL_DIR`, design F1), on GNOME.
public final class PortalHarness: Sendable {
    /// Where Debian's xdg-desktop-portal package installs the program.
    public static let executablePath = "/usr/libexec/xdg-desktop-portal"
    /// The name the portal owns once its interfaces are exported.
    public static let busName = "org.freedesktop.portal.Desktop"
    /// The `.portal` file the package installs.
    public static let repositoryPortalFile = TestBus.repositoryRoot.appendingPathComponent("dbus/puff.portal")

    /// Whether portal tests run here: the portal and the bus are installed, or `PUFF_REQUIRE_BUS=1`.
    public static var canRun: Bool { TestBus.canRun(needing: [TestBus.daemonPath, executablePath]) }

    private let process: BackgroundProcess

    /// Copies `portalFile` into `folder/portals/` and starts the portal on `bus` with that folder
    /// and `XDG_CURRENT_DESKTOP=desktop`; returns once it owns ``busName``.
    public init(
        on bus: TestBus, portalFile: URL = PortalHarness.repositoryPortalFile, folder: TestFolder,
        desktop: String = "GNOME"
    ) async throws {
        let portals = folder.appending("portals")
        let home = folder.appending("portal-home")
        for made in [portals, home] {
            try FileManager.default.createDirectory(
                at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try Data(contentsOf: portalFile).write(to: portals.appendingPathComponent(portalFile.lastPathComponent))
        process = try BackgroundProcess(
            Self.executablePath, ["--verbose"],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DESKTOP_PORTAL_DIR": portals.path,
                "XDG_CURRENT_DESKTOP": desktop, "HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            ],
            log: folder.appending("portal.log"))
        try await process.waitForOwner(Self.busName, on: bus)
    }

    /// Everything the portal logged so far.
    public var log: String { process.log }

    /// Whether the portal is still running.
    public var isRunning: Bool { process.isRunning }

    /// Stops the portal and waits until it is gone.
    public func stop() async { await process.stop() }
}
