// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import PuffService
import Testing

@testable import PuffDaemon

/// Built-in defaults, then `puffd.toml`, then the command line; and `--print-config` writes a
/// file that reads back as the same configuration.
struct ConfigurationPrecedenceTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puffd-config-\(UUID().uuidString)")

    /// Writes `text` as `puffd.toml` in a fresh folder and returns its path.
    func file(_ text: String) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("puffd.toml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The configuration `puffd ARGUMENTS` runs with, and where it came from.
    func effective(
        _ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent"]
    ) throws -> (DaemonConfiguration, ConfigurationPrinter.Source) {
        try PuffDaemon.parse(arguments).effectiveConfiguration(environment: environment)
    }

    @Test func withoutAFileTheDefaultsApply() throws {
        let (configuration, source) = try effective([])
        #expect(configuration == DaemonConfiguration())
        #expect(source == .none(defaultPath: "/nonexistent/.config/puff/puffd.toml"))
    }

    @Test func theFileOverridesTheDefaultsAndIsFoundInXDGConfigHome() throws {
        let xdg = folder.appendingPathComponent("xdg")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: xdg.appendingPathComponent("puff"), withIntermediateDirectories: true)
        let path = xdg.appendingPathComponent("puff/puffd.toml").path
        try "[prompts]\ntimeout = 15\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (configuration, source) = try effective([], environment: ["XDG_CONFIG_HOME": xdg.path, "HOME": "/h"])
        #expect(configuration.promptTimeout == 15)
        #expect(source == .file(path))
    }

    @Test func optionsGivenOnTheCommandLineOverrideTheFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try file(ConfigurationReadingTests.everyKey)
        let (configuration, _) = try effective([
            "--config", path, "--vault", "file", "--data-dir", "/cli", "--kdf", "moderate", "--prompter", "agent, none",
            "--pinentry", "/cli/pinentry", "--pinentry-tty", "/dev/pts/9", "--prompt-timeout", "30",
            "--lock-after-idle", "0", "--lock-after", "60", "--log-level", "error", "--fido2-device",
            "unix:/run/key.sock", "--tpm2-device", "swtpm:path=/run/tpm.sock",
        ])
        var expected = ConfigurationReadingTests.everyKeyExpected
        expected.store = "file"
        expected.dataDir = "/cli"
        expected.kdf = "moderate"
        expected.prompterOrder = ["agent", "none"]
        expected.pinentry = "/cli/pinentry"
        expected.pinentryTTY = "/dev/pts/9"
        expected.promptTimeout = 30
        expected.lockAfterIdle = 0
        expected.lockAfter = 60
        expected.logLevel = "error"
        expected.fido2Device = "unix:/run/key.sock"
        expected.tpm2Device = "swtpm:path=/run/tpm.sock"
        #expect(configuration == expected)
    }

    @Test func optionsNotGivenLeaveTheFilesValuesEvenWhereTheyEqualTheDefault() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try file("[prompts]\ntimeout = 15\norder = [\"none\"]\n[log]\nlevel = \"debug\"\n")
        // 60 is the built-in default: given on the command line, it still wins over the file.
        let (configuration, _) = try effective(["--config", path, "--prompt-timeout", "60"])
        #expect(configuration.promptTimeout == 60)
        #expect(configuration.prompterOrder == ["none"])
        #expect(configuration.logLevel == "debug")
    }

    @Test func ephemeralOverridesTheFilesStore() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try file("[vault]\nstore = \"file\"\n")
        let (configuration, _) = try effective(["--config", path, "--ephemeral"])
        #expect(configuration.store == "memory")
        #expect(configuration.effectiveAutoLock == .never)
    }

    @Test func aRelativePinentryTerminalIsRefusedOnTheCommandLineAsInTheFile() {
        #expect(throws: (any Error).self) { try PuffDaemon.parse(["--pinentry-tty", "pts/3"]) }
        #expect(throws: Never.self) { try PuffDaemon.parse(["--pinentry-tty", "/dev/pts/3"]) }
    }

    @Test func aSecurityKeyDeviceThatIsNoPathIsRefusedOnTheCommandLineAsInTheFile() {
        do {
            _ = try PuffDaemon.parse(["--fido2-device", "hidraw3"])
            Issue.record("--fido2-device hidraw3 was taken")
        } catch {
            #expect(PuffDaemon.message(for: error).contains("--fido2-device must be a device path"))
        }
        #expect(throws: Never.self) { try PuffDaemon.parse(["--fido2-device", "/dev/hidraw3"]) }
        #expect(throws: Never.self) { try PuffDaemon.parse(["--fido2-device", "unix:/run/user/1000/key.sock"]) }
    }

    @Test func aTPMThatIsNoTCTIIsRefusedOnTheCommandLineAsInTheFile() {
        do {
            _ = try PuffDaemon.parse(["--tpm2-device", "/dev/tpmrm0"])
            Issue.record("--tpm2-device /dev/tpmrm0 was taken")
        } catch {
            #expect(PuffDaemon.message(for: error).contains("--tpm2-device must be a TPM as tpm2-tss names it"))
        }
        for tcti in [
            "device:/dev/tpmrm0", "swtpm:path=/run/user/1000/tpm.sock", "mssim:host=localhost,port=2321", "tabrmd",
        ] {
            #expect(throws: Never.self, "\(tcti)") { try PuffDaemon.parse(["--tpm2-device", tcti]) }
        }
    }

    @Test func withoutATPMNamedTheKernelsResourceManagerIsUsed() throws {
        let (configuration, _) = try effective([])
        #expect(configuration.tpm2Device == "device:/dev/tpmrm0")
    }

    @Test func aFileNamedWithConfigMustExist() throws {
        let error = #expect(throws: ConfigurationError.self) { try effective(["--config", "/nonexistent/puffd.toml"]) }
        #expect(error?.file == "/nonexistent/puffd.toml")
        #expect(error?.reason == "cannot read it: No such file or directory")
    }

    @Test func printedConfigurationReadsBackAsTheSameConfiguration() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["HOME": "/h", "XDG_DATA_HOME": "/data"]
        for text in [ConfigurationReadingTests.everyKey, "", "[vault]\nstore = \"memory\"\n"] {
            let path = try file(text)
            let (configuration, source) = try effective(["--config", path, "--prompt-timeout", "42"])
            let printed = ConfigurationPrinter.render(configuration, source: source, environment: environment)
            #expect(printed.hasPrefix("# puffd configuration in effect; file: \(path)\n"))
            let reread = try ConfigurationFile.parse(printed, file: "printed")
            // Defaults come back resolved (the data folder, auto-lock): the same values, stated.
            #expect(ConfigurationPrinter.render(reread, source: source, environment: environment) == printed)
            #expect(
                reread.effectiveDataDir(environment: [:]) == configuration.effectiveDataDir(environment: environment))
            #expect(reread.effectiveAutoLock == configuration.effectiveAutoLock)
            #expect(reread.promptTimeout == 42 && reread.limits == configuration.limits)
            #expect(reread.pinentryTTY == configuration.pinentryTTY)
            #expect(reread.prompterOrder == configuration.prompterOrder && reread.store == configuration.store)
            #expect(reread.mappers == configuration.mappers && reread.uniqueInternet == configuration.uniqueInternet)
        }
    }

    @Test func printedStringsAreEscapedByToml() throws {
        var configuration = DaemonConfiguration()
        configuration.dataDir = "/odd \"dir\"\\with\ttab"
        let printed = ConfigurationPrinter.render(configuration, source: .none(defaultPath: "/x"), environment: [:])
        #expect(printed.hasPrefix("# puffd configuration in effect; no file (/x does not exist)\n"))
        #expect(try ConfigurationFile.parse(printed, file: "printed").dataDir == configuration.dataDir)
    }
}
