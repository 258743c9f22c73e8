// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Plain `puffctl unlock` through the built binaries (issue 26 item 3, docs/unlock-slots.md): it
/// tries the slots that need no typing first, a tpm2 slot (against a swtpm the test starts) and a
/// fido2 slot (against the software authenticator), and asks for the passcode on the terminal (a
/// real one, a tmux pane) only when they do not open the collection, saying why. With `--stdin` it
/// asks nothing of the TPM or the key, as before.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && Tmux.canRun),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct UntypedUnlockFlowTests {
    static let passcode = "untyped login pass"
    static let secret = "untyped-secret"

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-untyped-\(UUID().uuidString)")

    /// puffd on the test's vault; nobody answers a Secret Service prompt. With `create`, `login` is
    /// created from ``passcode`` (`--unlock-fd 0`) and holds the test's item.
    func daemon(_ extra: [String], create: Bool = false) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive", "--prompter", "none",
            ] + extra + (create ? ["--unlock-fd", "0"] : []),
            input: create ? Data((Self.passcode + "\n").utf8) : nil)
        if create {
            let store = try await ChildProcess.run(
                "/usr/bin/secret-tool", ["store", "--label=untyped", "service", "untyped-e2e"],
                environment: puffd.clientEnvironment, input: Data(Self.secret.utf8))
            #expect(store.status == 0, "\(store.output)")
        }
        return puffd
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Whether `secret-tool` reads the test's item (it does only while `login` is open: no prompter).
    func itemIsReadable(_ daemon: TestDaemon) async throws -> Bool {
        let read = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "untyped-e2e"], environment: daemon.clientEnvironment)
        return read.status == 0 && read.output == Self.secret
    }

    /// Whether `puffctl status` shows `login` locked.
    func loginIsLocked(_ daemon: TestDaemon) async throws -> Bool? {
        let status = try await puffctl(daemon, ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        return collections.first { $0["id"] as? String == "login" }?["locked"] as? Bool
    }

    /// `puffctl ARGUMENTS` on a tmux pane, the terminal a person would type on; the pane shows
    /// `puffctl exited N` once it ends. The pane's shell starts with an empty environment, so the
    /// daemon's client environment is given on the command line.
    func onTerminal(
        _ daemon: TestDaemon, _ arguments: [String], _ body: (TmuxPane) async throws -> Void
    ) async throws {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let environment = daemon.clientEnvironment.sorted { $0.key < $1.key }.map { quoted("\($0.key)=\($0.value)") }
        let command =
            (["env"] + environment + [quoted(VaultFlowTests.puffctl)] + arguments.map(quoted)).joined(separator: " ")
            + "; echo \"puffctl exited $?\"; exec sleep 100000"
        let pane = try await TmuxPane.start(running: command, columns: 200)
        do {
            try await body(pane)
        } catch {
            await pane.stop()
            throw error
        }
        await pane.stop()
    }

    /// Waits until the pane shows the passcode question or the end of puffctl, and returns its text.
    static func questionOrEnd(_ pane: TmuxPane) async throws -> String {
        try await pane.waitFor("the passcode question or puffctl's end") {
            $0.contains("Passcode for login:") || $0.contains("puffctl exited")
        }
    }

    /// A vault whose `login` holds the test's item and a tpm2 slot sealed by `tpm`.
    func enrolTPM(_ tpm: SoftwareTPM) async throws {
        let first = try await daemon(["--tpm2-device", tpm.tcti], create: true)
        let add = try await puffctl(first, ["slot", "add", "login", "tpm2", "--stdin"], input: Self.passcode + "\n")
        #expect(add.status == 0, "\(add.output)\n\(first.log.suffix(1500))")
        #expect(await first.terminate() == 0)
    }

    @Test(.enabled(if: SoftwareTPM.canRun))
    func aTPM2SlotOpensALockedCollectionOnPlainUnlockWithNothingTyped() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        try await enrolTPM(tpm)
        let puffd = try await daemon(["--tpm2-device", tpm.tcti])
        // Opened at start by the tpm2 slot; locked again, as after a screen lock.
        #expect(try await puffctl(puffd, ["lock", "login"]).status == 0)
        #expect(try await loginIsLocked(puffd) == true)

        try await onTerminal(puffd, ["unlock", "login"]) { pane in
            let screen = try await Self.questionOrEnd(pane)
            #expect(!screen.contains("Passcode for"), "nothing is asked: \(screen)")
            #expect(screen.contains("puffctl exited 0"), "\(screen)\n\(puffd.log.suffix(1500))")
        }
        #expect(try await itemIsReadable(puffd))
        #expect(try tpm.loadedHandles() == [])
        #expect(await puffd.terminate() == 0)
    }

    @Test(.enabled(if: SoftwareTPM.canRun))
    func underAnotherTPMStatePlainUnlockSaysWhyAndAsksForThePasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        try await enrolTPM(tpm)
        // The same files on a machine whose TPM is another one (a new swtpm state).
        let other = try SoftwareTPM()
        let puffd = try await daemon(["--tpm2-device", other.tcti])
        #expect(try await loginIsLocked(puffd) == true)

        try await onTerminal(puffd, ["unlock", "login"]) { pane in
            let screen = try await Self.questionOrEnd(pane)
            #expect(screen.contains("Passcode for login:"), "\(screen)")
            #expect(screen.contains("tpm2 slot “tpm2” did not open it"), "why it asks: \(screen)")
            #expect(screen.contains("sealed by another TPM"), "\(screen)")
            try await pane.send(Self.passcode, "Enter")
            let ended = try await pane.waitFor("puffctl's end") { $0.contains("puffctl exited") }
            #expect(ended.contains("puffctl exited 0"), "\(ended)")
            #expect(!ended.contains(Self.passcode), "echo was off")
        }
        #expect(try await itemIsReadable(puffd))
        #expect(try other.loadedHandles() == [])
        #expect(await puffd.terminate() == 0)
    }

    @Test(.enabled(if: SoftwareTPM.canRun))
    func aCollectionWithNoTypedSlotSaysWhyItsTPM2SlotFailedInsteadOfAskingForAPasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        try await enrolTPM(tpm)
        let setup = try await daemon(["--tpm2-device", tpm.tcti])
        // The passcode slot (1) goes, proved by its own passcode: only the TPM opens login now.
        let removed = try await puffctl(
            setup, ["slot", "remove", "login", "1", "--stdin"], input: Self.passcode + "\n")
        #expect(removed.status == 0, "\(removed.output)")
        #expect(await setup.terminate() == 0)

        let other = try SoftwareTPM()
        let puffd = try await daemon(["--tpm2-device", other.tcti])
        try await onTerminal(puffd, ["unlock", "login"]) { pane in
            let screen = try await Self.questionOrEnd(pane)
            #expect(!screen.contains("Passcode for"), "no passcode would open it: \(screen)")
            #expect(screen.contains("sealed by another TPM"), "\(screen)")
            #expect(screen.contains("puffctl exited 1"), "\(screen)")
        }
        #expect(try await loginIsLocked(puffd) == true)
        #expect(await puffd.terminate() == 0)
    }

    @Test func aPresentSecurityKeyOpensOnPlainUnlockByATouchAndARefusedTouchFallsBackToThePasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        // The same key (same seed, so it holds the slot's credential) with a person who refuses.
        let refusing = try await SoftwareSecurityKey(in: folder, name: "refusing", touch: .refuse)
        defer { refusing.stop() }
        let first = try await daemon(["--fido2-device", key.device], create: true)
        let added = try await puffctl(
            first, ["slot", "add", "login", "fido2", "--label", "yubikey", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(try await puffctl(first, ["lock", "login"]).status == 0)

        // No terminal, nothing on standard input: the touch alone opens it.
        let touched = try await puffctl(first, ["unlock", "login"])
        #expect(touched.status == 0, "\(touched.output)\n\(first.log.suffix(1500))")
        #expect(touched.output.contains("Touch the security key “yubikey”"), "\(touched.output)")
        #expect(try await itemIsReadable(first))
        #expect(await first.terminate() == 0)

        let second = try await daemon(["--fido2-device", refusing.device])
        try await onTerminal(second, ["unlock", "login"]) { pane in
            let screen = try await Self.questionOrEnd(pane)
            #expect(screen.contains("Touch the security key"), "\(screen)")
            #expect(screen.contains("not touched, or the person refused"), "why it asks: \(screen)")
            #expect(screen.contains("Passcode for login:"), "\(screen)")
            try await pane.send(Self.passcode, "Enter")
            let ended = try await pane.waitFor("puffctl's end") { $0.contains("puffctl exited") }
            #expect(ended.contains("puffctl exited 0"), "\(ended)")
        }
        #expect(try await itemIsReadable(second))
        #expect(await second.terminate() == 0)
    }

    /// puffd's own limit on a wait for a touch is 120 s: a CANCEL well before it is the departure's.
    static let beforePuffdsOwnLimit = Duration.seconds(60)

    @Test func stoppingPuffctlWhileTheKeyWaitsForATouchEndsTheKeysWait() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        // The same key, never touched: it waits until the platform sends CTAPHID CANCEL.
        let waiting = try await SoftwareSecurityKey(in: folder, name: "waiting", touch: .wait)
        defer { waiting.stop() }
        let first = try await daemon(["--fido2-device", key.device], create: true)
        let added = try await puffctl(first, ["slot", "add", "login", "fido2", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(await first.terminate() == 0)

        let puffd = try await daemon(["--fido2-device", waiting.device])
        let unlock = Process()
        unlock.executableURL = URL(fileURLWithPath: VaultFlowTests.puffctl)
        unlock.arguments = ["unlock", "login"]
        unlock.environment = puffd.clientEnvironment
        unlock.standardInput = FileHandle.nullDevice
        unlock.standardOutput = FileHandle.nullDevice
        unlock.standardError = FileHandle.nullDevice
        try unlock.run()
        #expect(try await waiting.waitForLogLine("touch?"), "\(puffd.log.suffix(1500))")
        // The person gives up on the key: Ctrl-C.
        kill(unlock.processIdentifier, SIGINT)
        _ = await unlock.exitStatusWhenEnded()
        #expect(
            try await waiting.waitForLogLine("cancel", within: Self.beforePuffdsOwnLimit),
            "the key still waits: \(waiting.logged())")
        #expect(try await loginIsLocked(puffd) == true)
        #expect(await puffd.terminate() == 0)
    }

    @Test func enterWhileTheKeyWaitsEndsTheWaitAndAsksForThePasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        let waiting = try await SoftwareSecurityKey(in: folder, name: "waiting", touch: .wait)
        defer { waiting.stop() }
        let first = try await daemon(["--fido2-device", key.device], create: true)
        let added = try await puffctl(first, ["slot", "add", "login", "fido2", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(await first.terminate() == 0)

        let puffd = try await daemon(["--fido2-device", waiting.device])
        try await onTerminal(puffd, ["unlock", "login"]) { pane in
            try await pane.waitFor("the touch question") { $0.contains("press Enter to type the passcode") }
            #expect(try await waiting.waitForLogLine("touch?"))
            try await pane.send("Enter")
            let screen = try await Self.questionOrEnd(pane)
            #expect(screen.contains("Passcode for login:"), "\(screen)")
            #expect(
                try await waiting.waitForLogLine("cancel", within: Self.beforePuffdsOwnLimit),
                "the key still waits: \(waiting.logged())")
            try await pane.send(Self.passcode, "Enter")
            let ended = try await pane.waitFor("puffctl's end") { $0.contains("puffctl exited") }
            #expect(ended.contains("puffctl exited 0"), "\(ended)")
            #expect(!ended.contains(Self.passcode), "echo was off")
        }
        #expect(try await itemIsReadable(puffd))
        #expect(await puffd.terminate() == 0)
    }

    @Test func aPasscodeFromStandardInputNeverReachesForTheKey() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        let puffd = try await daemon(["--fido2-device", key.device], create: true)
        let added = try await puffctl(
            puffd, ["slot", "add", "login", "fido2", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(try await puffctl(puffd, ["lock", "login"]).status == 0)

        // A script's wrong passcode: the key, which would open it at a touch, is not asked.
        let scripted = try await puffctl(puffd, ["unlock", "login", "--stdin"], input: "not the passcode\n")
        #expect(scripted.status == 2, "wrong passcode: \(scripted.output)")
        #expect(!scripted.output.contains("Touch"), "\(scripted.output)")
        #expect(try await loginIsLocked(puffd) == true)
        #expect(await puffd.terminate() == 0)
    }
}
