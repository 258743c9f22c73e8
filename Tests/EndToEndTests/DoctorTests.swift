// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// `puffctl doctor` on a private bus: with a competing provider (a python3 process) owning
/// org.freedesktop.secrets, then with puffd owning it; activation files come from a temporary
/// XDG_DATA_HOME and XDG_DATA_DIRS holding a gnome-keyring-like file.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct DoctorTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("puff-doctor-e2e-\(UUID().uuidString)")
        .path

    /// The environment doctor runs in: the bus, and service folders under `root` only (plus the
    /// machine's /usr/share, which comes last and so never decides).
    func environment(bus: TestBus) throws -> [String: String] {
        let system = "\(root)/system/dbus-1/services"
        try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
        try """
        [D-BUS Service]
        Name=org.freedesktop.secrets
        Exec=/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets
        """.write(toFile: "\(system)/org.freedesktop.secrets.service", atomically: false, encoding: .utf8)
        return [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": "\(root)/home", "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8", "XDG_DATA_HOME": "\(root)/data", "XDG_DATA_DIRS": "\(root)/system",
        ]
    }

    func doctor(_ environment: [String: String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(VaultFlowTests.puffctl, ["doctor"], environment: environment)
    }

    /// Writes the user-level activation file doctor asks for.
    func preferPuffd(_ environment: [String: String]) throws {
        let folder = "\(environment["XDG_DATA_HOME"]!)/dbus-1/services"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(TestDaemon.executablePath)\n"
            .write(toFile: "\(folder)/org.freedesktop.secrets.service", atomically: false, encoding: .utf8)
    }

    @Test func aCompetingProviderIsNamedByItsExecutableAndDoctorFails() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bus = try TestBus()
        let competitor = try await CompetingProvider(bus: bus)
        let environment = try environment(bus: bus)
        let result = try await doctor(environment)
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains("FAIL  org.freedesktop.secrets is owned by /usr/bin/python3"), "\(result.output)")
        #expect(result.output.contains("(pid \(competitor.processIdentifier)), not puffd"), "\(result.output)")
        #expect(result.output.contains("kill \(competitor.processIdentifier)"), "\(result.output)")
        #expect(result.output.contains("WARN  the bus starts gnome-keyring, not puffd, on first use (\(root)/system/"))
        #expect(result.output.contains("Exec=/usr/bin/gnome-keyring-daemon --start"), "the file's Exec line is shown")
        #expect(result.output.contains("write \(root)/data/dbus-1/services/org.freedesktop.secrets.service"))
        #expect(result.output.contains("OK    no vault yet at \(root)/data/puff (the default)"), "\(result.output)")
        #expect(result.output.contains("doctor found 1 problem"), "\(result.output)")

        try preferPuffd(environment)
        let after = try await doctor(environment)
        #expect(after.output.contains("OK    the bus starts puffd on first use (\(root)/data/dbus-1/services/"))
        #expect(after.output.contains("gnome-keyring (Exec=/usr/bin/gnome-keyring-daemon"), "the others are listed")
        #expect(after.status == 1, "the competitor still owns the name")
    }

    @Test func puffdOwningTheNameIsReportedWithItsVaultAndThePrompterThatWouldAnswer() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let pinentry = ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path
        let puffd = try await TestDaemon(
            arguments: [
                "--data-dir", "\(root)/vault", "--kdf", "interactive", "--prompter", "pinentry,none",
                "--pinentry", pinentry,
            ],
            environment: ["DISPLAY": ":test"])
        var environment = try environment(bus: puffd.bus)
        try preferPuffd(environment)
        let result = try await doctor(environment)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("OK    puffd "), "\(result.output)")
        #expect(
            result.output.contains("owns org.freedesktop.secrets: \(TestDaemon.executablePath)"), "\(result.output)")
        #expect(result.output.contains("(pid \(puffd.processIdentifier))"), "\(result.output)")
        #expect(result.output.contains("OK    vault \(root)/vault (puffd's): folder 0700"), "\(result.output)")
        #expect(result.output.contains("OK    pinentry answers unlock prompts"), "\(result.output)")
        // Whether this machine has a TPM or not, the TPM check names the node it looked at.
        #expect(result.output.contains("/dev/tpmrm0"), "\(result.output)")
        #expect(!result.output.contains("FAIL"), "\(result.output)")
        #expect(!result.output.contains("OpenBao"), "no [store.openbao], no OpenBao checks: \(result.output)")

        environment["DBUS_SESSION_BUS_ADDRESS"] = puffd.bus.address
        let status = try await ChildProcess.run(VaultFlowTests.puffctl, ["status", "--json"], environment: environment)
        #expect(status.output.contains(#""prompter" : "pinentry""#), "\(status.output)")
    }

    @Test func withNobodyToAskStatusSaysNoneAndDoctorWarns() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let puffd = try await TestDaemon(arguments: ["--prompter", "agent,pinentry,none", "--pinentry", "/nonexistent"])
        let environment = try environment(bus: puffd.bus)
        let status = try await ChildProcess.run(VaultFlowTests.puffctl, ["status", "--json"], environment: environment)
        #expect(status.output.contains(#""prompter" : "none""#), "\(status.output)")
        let result = try await doctor(environment)
        #expect(result.output.contains("WARN  no prompter can reach a person now"), "\(result.output)")
        #expect(result.output.contains("OK    puffd keeps the vault in memory"), "\(result.output)")
        #expect(result.status == 0, "warnings do not fail: \(result.output)")
    }
}

/// A python3 process owning org.freedesktop.secrets on `bus` (Clients/competing_provider.py),
/// ended when released.
final class CompetingProvider: @unchecked Sendable {
    // @unchecked: set once in init and only read afterwards.
    private let process = Process()
    private let input = Pipe()

    init(bus: TestBus) async throws {
        process.executableURL = URL(fileURLWithPath: ClientDriver.python)
        process.arguments = [ClientDriver.directory.appendingPathComponent("competing_provider.py").path]
        process.environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let probe = try await BusConnection.connect(address: bus.address)
        defer { probe.close() }
        let process = self.process
        let owned = try await poll(limit: HangGuard.step, every: .milliseconds(50)) {
            try await probe.nameOwner(of: BusName("org.freedesktop.secrets")!) != nil || process.hasExited
        }
        if owned, !process.hasExited { return }
        throw TestDaemonError.neverOwnedName("competing_provider.py did not own org.freedesktop.secrets")
    }

    var processIdentifier: Int32 { process.processIdentifier }

    deinit {
        kill(process.processIdentifier, SIGTERM)
        try? input.fileHandleForWriting.close()
    }
}
