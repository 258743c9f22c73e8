// SPDX-License-Identifier: Apache-2.0
public import Foundation

// Usage (issue 28's harness; docs/design/sandboxed-apps.md §6):
//
//     @Suite(.serialized, .enabled("bubblewrap cannot build a sandbox here (sandbox.py --probe)") {
//         await Sandbox.canRun() },
//         .timeLimit(.minutes(HangGuard.testMinutes)))
//     ...
//     let folder = try TestFolder("portal")                        // 0700, removed at the end
//     let daemon = try await TestDaemon(on: TestBus(socketIn: folder.url))  // a path socket
//     let portal = try await PortalHarness(on: daemon.bus, folder: folder)  // after puffd (F3)
//     let app = Sandbox(app: "org.example.App", folder: folder.url, proxy: Sandbox.flatpakPortalRules)
//     let lines = try await ClientDriver.expectOutput(
//         "portal_secret.py", ["--expect-response", "0", "--expect-bytes", "64"],
//         environment: daemon.clientEnvironment, input: Sandbox.saltInput(salt), wrapper: app.wrapper)
//
// `proxy: nil` gives the app the bus socket itself; `[Sandbox.talkToSecrets]` is an app granted
// `--talk=org.freedesktop.secrets`. The bus reports the proxy's pid for a proxied app, and that
// pid's root holds the app's `.flatpak-info` (F9). The app's HOME is `sandbox.home`, kept
// between runs in one folder. Clients/sandbox.py's header says the rest.

/// A Flatpak-like sandbox for one app id, run by Tests/EndToEndTests/Clients/sandbox.py: a
/// bubblewrap root holding a `.flatpak-info`, optionally behind a real xdg-dbus-proxy in a
/// bubblewrap of its own, as flatpak runs it.
public struct Sandbox: Sendable {
    /// The Flatpak app id the sandbox's `.flatpak-info` names.
    public var app: String
    /// The test's own folder (``TestFolder``): the info file, the app's home and proxy sockets.
    public var folder: URL
    /// xdg-dbus-proxy policy options (`--talk=NAME`, `--call=NAME=RULE`, ...); nil runs no proxy.
    public var proxy: [String]?
    /// Variables set inside; the environment is otherwise PATH, LANG, HOME and the bus address.
    public var environment: [String: String]

    /// The rules flatpak gives every app for the portals.
    public static let flatpakPortalRules = [
        "--call=org.freedesktop.portal.*=*", "--broadcast=org.freedesktop.portal.*=@/org/freedesktop/portal/*",
    ]
    /// The rule of an app granted the Secret Service in its manifest.
    public static let talkToSecrets = "--talk=org.freedesktop.secrets"

    public init(app: String, folder: URL, proxy: [String]? = nil, environment: [String: String] = [:]) {
        self.app = app
        self.folder = folder
        self.proxy = proxy
        self.environment = environment
    }

    /// The script that builds the sandbox.
    public static let script = TestBus.repositoryRoot.appendingPathComponent(
        "Tests/EndToEndTests/Clients/sandbox.py"
    ).path

    /// The words that run a program in this sandbox: ClientDriver's `wrapper:`, or the start of
    /// a command line for ``ChildProcess``.
    public var wrapper: [String] {
        var words = ["/usr/bin/python3", Self.script, "--app", app, "--folder", folder.path]
        if let proxy { words += ["--proxy"] + proxy.map { "--rule=\($0)" } }
        words += environment.sorted { $0.key < $1.key }.map { "--setenv=\($0.key)=\($0.value)" }
        return words + ["--"]
    }

    /// The app's HOME, inside and outside the sandbox.
    public var home: URL { folder.appendingPathComponent("home").appendingPathComponent(app) }

    /// Standard input for clients that take a per-test salt: its hex digits and a newline. They
    /// print key material only as a BLAKE2b digest keyed with it.
    public static func saltInput(_ salt: [UInt8]) -> Data {
        Data((salt.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
    }

    /// Whether sandbox tests run here: where bubblewrap can build a sandbox (user namespaces,
    /// bwrap and xdg-dbus-proxy installed), and always under `PUFF_REQUIRE_BUS=1` (CI), where a
    /// missing piece must fail the tests, not skip them.
    public static func canRun() async -> Bool {
        if ProcessInfo.processInfo.environment["PUFF_REQUIRE_BUS"] == "1" { return true }
        guard TestBus.isAvailable else { return false }
        return await unavailableReason() == nil
    }

    /// Why no sandbox can be built here, or nil when one can: `sandbox.py --probe`, run once.
    public static func unavailableReason() async -> String? { await probe.value }

    private static let probe = Task<String?, Never> {
        guard let folder = try? TestFolder("probe") else { return "no temporary folder" }
        let result = try? await ChildProcess.run(
            "/usr/bin/python3", [script, "--probe", "--folder", folder.url.path], environment: ["PATH": "/usr/bin:/bin"]
        )
        guard let result else { return "/usr/bin/python3 \(script) --probe did not run" }
        return result.status == 0 ? nil : result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
