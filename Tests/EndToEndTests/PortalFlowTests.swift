// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The Secret portal with Debian's xdg-desktop-portal 1.16 on a private bus, reading only the
/// repository's dbus/puff.portal (GNOME), the built puffd as its backend, and apps in bubblewrap
/// sandboxes carrying a `.flatpak-info` (docs/design/sandboxed-apps.md §6 item 1). Key bytes are
/// never printed: clients print the byte count and a BLAKE2b-128 keyed with this test's salt.
@Suite(
    .serialized, .enabled(if: PortalHarness.canRun),
    .enabled("bubblewrap cannot build a sandbox here (sandbox.py --probe)") { await Sandbox.canRun() },
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct PortalFlowTests {
    static let app = "org.example.App"
    static let other = "org.example.Other"
    static let passcode = "portal pass"
    static let schema = "org.freedesktop.portal.Secret"

    let folder: TestFolder
    let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }

    init() throws {
        folder = try TestFolder("portal")
    }

    var vault: String { folder.appending("vault").path }

    /// puffd on a bus with a path socket in the test's folder (the sandboxes bind it), on this
    /// test's vault, with a prompt timeout no step reaches: an answer within the hang guard is a
    /// dismissal, never the timeout.
    func daemon(prompter: String = "none", bus: TestBus? = nil) async throws -> TestDaemon {
        try await TestDaemon(
            arguments: [
                "--data-dir", vault, "--kdf", "interactive", "--prompter", prompter, "--prompt-timeout", "3600",
            ],
            on: bus ?? TestBus(socketIn: folder.url))
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            TestDaemon.executablePath.replacingOccurrences(of: "/puffd", with: "/puffctl"), arguments,
            environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// What `app` gets from the portal, run in its sandbox behind flatpak's portal rules: the
    /// digest of the bytes its pipe carried (keyed with this test's salt).
    func retrieve(
        _ app: String, on daemon: TestDaemon, response: Int = 0, bytes: Int? = 64, token: String = "puff1",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String? {
        let sandbox = Sandbox(app: app, folder: folder.url, proxy: Sandbox.flatpakPortalRules)
        var arguments = ["--expect-response", String(response), "--token", token]
        if let bytes { arguments += ["--expect-bytes", String(bytes)] }
        let lines = try await ClientDriver.expectOutput(
            "portal_secret.py", arguments, environment: daemon.clientEnvironment, input: Sandbox.saltInput(salt),
            wrapper: sandbox.wrapper, sourceLocation: sourceLocation)
        return lines.first { $0.hasPrefix("digest ") }
    }

    /// How many items carry the portal's schema, over the unlocked collections.
    func keyItems(_ daemon: TestDaemon) async throws -> [[String: Any]] {
        let search = try await puffctl(daemon, ["search", Self.schema, "--json"])
        guard search.status == 0 else { return [] }
        let items = try JSONSerialization.jsonObject(with: search.bytes) as? [[String: Any]] ?? []
        return items.filter { ($0["attributes"] as? [String: String])?["xdg:schema"] == Self.schema }
    }

    /// `puffctl audit --json`'s portal-key entries, as "result label".
    func portalAudit(_ daemon: TestDaemon) async throws -> [String] {
        let audit = try await puffctl(daemon, ["audit", "--json"])
        let object = try JSONSerialization.jsonObject(with: audit.bytes) as? [String: Any]
        let entries = object?["entries"] as? [[String: Any]] ?? []
        return entries.filter { $0["action"] as? String == "portal-key" }.map {
            "\($0["result"] as? String ?? "?") \($0["label"] as? String ?? "?")"
        }
    }

    // (a), (b), (c)
    @Test func anAppGetsSixtyFourBytesTheSameAfterARestartAndAnotherAppOthers() async throws {
        var puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        var portal = try await PortalHarness(on: puffd.bus, folder: folder)
        let first = try await retrieve(Self.app, on: puffd)
        #expect(first != nil)
        #expect(try await retrieve(Self.app, on: puffd, token: "again") == first, "one app, one key")
        let other = try await retrieve(Self.other, on: puffd)
        #expect(other != nil && other != first, "another app gets another key")
        let items = try await keyItems(puffd)
        #expect(items.count == 2, "one item per app")
        #expect(Set(items.compactMap { ($0["attributes"] as? [String: String])?["app_id"] }) == [Self.app, Self.other])
        #expect(
            try await portalAudit(puffd) == ["allowed \(Self.app)", "allowed \(Self.app)", "allowed \(Self.other)"])

        // A restart of puffd on the same vault: the key was durable before the app got it.
        await portal.stop()
        let bus = puffd.bus
        _ = await puffd.terminate()
        puffd = try await daemon(bus: bus)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: Self.passcode + "\n").status == 0)
        portal = try await PortalHarness(on: puffd.bus, folder: folder)
        #expect(try await retrieve(Self.app, on: puffd) == first, "the same bytes after a restart")
        await portal.stop()
        _ = await puffd.terminate()
    }

    // (d)
    @Test func aLockedCollectionWithNobodyToAskIsCancelledAtOnceAndMakesNoKey() async throws {
        let puffd = try await daemon(prompter: "none")
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let portal = try await PortalHarness(on: puffd.bus, folder: folder)
        // The prompt timeout is an hour: a response within the client's hang guard is the answer.
        _ = try await retrieve(Self.app, on: puffd, response: 1, bytes: 0)
        let status = try await puffctl(puffd, ["status"]).output.split(separator: "\n")
        #expect(
            status.contains { $0.hasPrefix("login") && $0.split(separator: " ").contains("locked") }, "still locked")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: Self.passcode + "\n").status == 0)
        #expect(try await keyItems(puffd).isEmpty, "no key was made while locked")
        await portal.stop()
        _ = await puffd.terminate()
    }

    // (e): F9, what gnome-keyring 42 gives a hostile app.
    @Test func anAppCallingTheBackendItselfForAnotherAppIsRefused() async throws {
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        let portal = try await PortalHarness(on: puffd.bus, folder: folder)
        let victim = try await retrieve(Self.app, on: puffd)
        let hostile = Sandbox(app: "org.example.Hostile", folder: folder.url, proxy: [Sandbox.talkToSecrets])
        let lines = try await ClientDriver.expectOutput(
            "portal_forge.py", [Self.app, "--expect-error", "org.freedesktop.DBus.Error.AccessDenied"],
            environment: puffd.clientEnvironment, input: Sandbox.saltInput(salt), wrapper: hostile.wrapper)
        #expect(lines.contains("bytes 0"))
        #expect(lines.first { $0.hasPrefix("digest ") } != victim)
        #expect(try await portalAudit(puffd) == ["allowed \(Self.app)", "refused \(Self.app)"])
        await portal.stop()
        _ = await puffd.terminate()
    }

    /// `portal_agent.py` as the person's agent, registered; its log says what it was asked.
    func agent(_ puffd: TestDaemon) async throws -> BackgroundProcess {
        let agent = try BackgroundProcess(
            ClientDriver.python, [ClientDriver.directory.appendingPathComponent("portal_agent.py").path],
            environment: puffd.clientEnvironment, log: folder.appending("agent.log"))
        #expect(await poll(limit: HangGuard.step, every: .milliseconds(20)) { agent.log.contains("registered\n") })
        return agent
    }

    /// `app` asks, the agent holds the question `held` names, the app closes its request: the
    /// question must be withdrawn (the agent's pipe closed) and the pipe stay empty.
    func closeWhileHeld(_ app: String, held: String, on puffd: TestDaemon) async throws {
        let agent = try await agent(puffd)
        let sandbox = Sandbox(app: app, folder: folder.url, proxy: Sandbox.flatpakPortalRules)
        async let closing = ClientDriver.expectPasses(
            "portal_close.py", environment: puffd.clientEnvironment, wrapper: sandbox.wrapper)
        #expect(
            await poll(limit: HangGuard.step, every: .milliseconds(20)) { agent.log.contains("held \(held) \(app)\n") },
            "the agent was not asked: \(agent.log)")
        FileManager.default.createFile(atPath: sandbox.home.appendingPathComponent("close-now").path, contents: nil)
        try await closing
        #expect(
            await poll(limit: HangGuard.step, every: .milliseconds(20)) { agent.log.contains("withdrawn\n") },
            "the question stayed: \(agent.log)")
        #expect(!agent.log.contains("FAIL"), "\(agent.log)")
        await agent.stop()
    }

    // (f), locked: the unlock question the app's request raised goes away with it.
    @Test func closingTheRequestWithdrawsTheUnlockQuestionItRaised() async throws {
        let puffd = try await daemon(prompter: "agent,none")
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let portal = try await PortalHarness(on: puffd.bus, folder: folder)
        try await closeWhileHeld(Self.app, held: "unlock", on: puffd)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: Self.passcode + "\n").status == 0)
        #expect(try await keyItems(puffd).isEmpty, "nothing was made for the closed request")
        await portal.stop()
        _ = await puffd.terminate()
    }

    // (f), unlocked: a protected key's confirmation, withdrawn, is audited as dismissed.
    @Test func closingTheRequestWithdrawsAProtectedKeysConfirmationAndIsAuditedDismissed() async throws {
        let puffd = try await daemon(prompter: "agent,none")
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        let portal = try await PortalHarness(on: puffd.bus, folder: folder)
        _ = try await retrieve(Self.app, on: puffd)
        let key = try #require(try await keyItems(puffd).first?["path"] as? String)
        let protect = try await puffctl(puffd, ["protect", key])
        #expect(protect.status == 0, "\(protect.output)")
        try await closeWhileHeld(Self.app, held: "confirm-read", on: puffd)
        #expect(try await portalAudit(puffd) == ["allowed \(Self.app)", "dismissed \(Self.app)"])
        await portal.stop()
        _ = await puffd.terminate()
    }

    // (g)
    @Test func twoFirstCallsOfOneAppAtOnceGetOneKey() async throws {
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n").status == 0)
        let portal = try await PortalHarness(on: puffd.bus, folder: folder)
        async let first = retrieve(Self.app, on: puffd, token: "first")
        async let second = retrieve(Self.app, on: puffd, token: "second")
        let digests = try await [first, second]
        #expect(digests[0] != nil && digests[0] == digests[1])
        let keys = try await keyItems(puffd)
        #expect(keys.count == 1)
        // Deleting a key is the person's to do, and puffctl says what it costs the app.
        let removed = try await puffctl(puffd, ["rm", "--force", try #require(keys.first?["path"] as? String)])
        #expect(removed.status == 0)
        #expect(removed.output.contains("portal key of \(Self.app)"), "\(removed.output)")
        await portal.stop()
        _ = await puffd.terminate()
    }
}
