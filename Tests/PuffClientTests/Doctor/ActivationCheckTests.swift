// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// Check 3: the activation files naming org.freedesktop.secrets, which one wins and the file
/// that makes puffd win.
struct ActivationCheckTests {
    static let gnomeKeyring = """
        [D-BUS Service]
        Name=org.freedesktop.secrets
        Exec=/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets
        """
    let environment = ["HOME": "/home/me", "XDG_DATA_HOME": "/home/me/.local/share"]

    @Test func serviceFoldersComeInDBusDaemonsOrderWithoutRepeats() {
        let folders = ActivationCheck.serviceDirectories(environment: [
            "HOME": "/home/me", "XDG_RUNTIME_DIR": "/run/user/1000",
            "XDG_DATA_DIRS": "/opt/x/share/:/usr/share:relative",
        ])
        #expect(
            folders == [
                "/run/user/1000/dbus-1/services", "/home/me/.local/share/dbus-1/services",
                "/opt/x/share/dbus-1/services", "/usr/share/dbus-1/services",
            ])
    }

    @Test func withoutVariablesTheFoldersAreTheXDGDefaults() {
        #expect(
            ActivationCheck.serviceDirectories(environment: ["HOME": "/home/me"]) == [
                "/home/me/.local/share/dbus-1/services", "/usr/local/share/dbus-1/services",
                "/usr/share/dbus-1/services",
            ])
    }

    @Test func aServiceFileIsReadFromItsDBusServiceGroupOnly() throws {
        let parsed = try #require(ActivationFile.parse(Self.gnomeKeyring))
        #expect(parsed.name == "org.freedesktop.secrets")
        #expect(parsed.exec == "/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets")
        let other = "[Other]\nName=org.freedesktop.secrets\n[D-BUS Service]\n Name = org.kde.kwalletd6 \nExec=x\n"
        #expect(ActivationFile.parse(other)?.name == "org.kde.kwalletd6")
        #expect(ActivationFile.parse("# nothing\n[D-BUS Service]\nExec=/bin/true\n") == nil)
    }

    @Test func providersAreToldApartByTheirExecutable() {
        let cases: [(String, SecretProvider)] = [
            ("/usr/bin/gnome-keyring-daemon --start --components=secrets", .gnomeKeyring),
            ("/usr/bin/ksecretd", .kwallet), ("/usr/bin/kwalletd6", .kwallet), ("/usr/bin/kwalletd5", .kwallet),
            ("/usr/bin/keepassxc", .keepassxc), ("/usr/libexec/oo7-daemon", .oo7),
            ("/usr/libexec/puff/puffd", .puff), ("/usr/bin/env puffd --prompter agent,none", .puff),
            ("/usr/bin/python3.11", .other), ("", .other),
        ]
        for (command, provider) in cases {
            #expect(SecretProvider(command: command) == provider, "\(command)")
        }
    }

    @Test func aCompetitorFirstIsAWarningWithTheExactFileThatMakesPuffdWin() {
        let files = [
            ActivationFile(path: "/usr/local/share/dbus-1/services/x.service", exec: "/usr/bin/ksecretd"),
            ActivationFile(
                path: "/usr/share/dbus-1/services/org.freedesktop.secrets.service", exec: "/usr/libexec/puff/puffd"),
        ]
        let findings = ActivationCheck.findings(
            files: files, environment: environment, puffd: "/usr/libexec/puff/puffd")
        #expect(findings.count == 1)
        #expect(findings[0].mark == .warn)
        #expect(findings[0].summary.contains("starts KWallet, not puffd"))
        #expect(findings[0].details.count == 2)
        #expect(findings[0].details[1].contains("Puff (puffd)"))
        #expect(
            findings[0].next == """
                write /home/me/.local/share/dbus-1/services/org.freedesktop.secrets.service with these lines \
                (it overrides every system folder):
                  [D-BUS Service]
                  Name=org.freedesktop.secrets
                  Exec=/usr/libexec/puff/puffd
                """)
    }

    @Test func puffdFirstIsOK() {
        let files = [ActivationFile(path: "/home/me/.local/share/dbus-1/services/s.service", exec: "/opt/puffd")]
        let findings = ActivationCheck.findings(files: files, environment: environment, puffd: "/opt/puffd")
        #expect(findings.map(\.mark) == [.ok])
        #expect(findings[0].next == nil)
    }

    /// Puff's package beside gnome-keyring's: two files naming the name in /usr/share. dbus-daemon
    /// keeps whichever it reads first, so puffd listed first is still only a maybe.
    @Test func twoProvidersInOneFolderAreAWarningEvenWithPuffdFirst() {
        let folder = "/usr/share/dbus-1/services"
        let files = [
            ActivationFile(path: "\(folder)/io.puff.Secrets.service", exec: "/usr/libexec/puff/puffd"),
            ActivationFile(
                path: "\(folder)/org.freedesktop.secrets.service",
                exec: "/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets"),
        ]
        let findings = ActivationCheck.findings(
            files: files, environment: environment, puffd: "/usr/libexec/puff/puffd")
        #expect(findings.map(\.mark) == [.warn])
        #expect(findings[0].summary.contains("may start puffd or gnome-keyring on first use"))
        #expect(findings[0].details.last?.contains("starts the one it reads first") == true)
        #expect(
            findings[0].next?.hasPrefix(
                "write /home/me/.local/share/dbus-1/services/org.freedesktop.secrets.service") == true)

        let reversed = ActivationCheck.findings(
            files: files.reversed(), environment: environment, puffd: "/usr/libexec/puff/puffd")
        #expect(reversed[0].summary.contains("starts gnome-keyring, not puffd"))
        #expect(reversed[0].details.last?.contains("starts the one it reads first") == true)

        // The same provider twice in a folder settles nothing either way, and is no warning.
        let same = ActivationCheck.findings(
            files: [files[0], ActivationFile(path: "\(folder)/other.service", exec: "/opt/puffd")],
            environment: environment, puffd: "/usr/libexec/puff/puffd")
        #expect(same.map(\.mark) == [.ok])
    }

    @Test func noFileAtAllIsAWarningWithTheSameStep() {
        let findings = ActivationCheck.findings(files: [], environment: environment, puffd: "/opt/puffd")
        #expect(findings.map(\.mark) == [.warn])
        #expect(findings[0].next?.hasSuffix("  Exec=/opt/puffd") == true)
    }

    @Test func aCompetitorInTheRuntimeFolderMustBeRemovedFirst() {
        let runtime = "/run/user/1000/dbus-1/services/org.freedesktop.secrets.service"
        let findings = ActivationCheck.findings(
            files: [ActivationFile(path: runtime, exec: "/usr/bin/gnome-keyring-daemon")],
            environment: environment.merging(["XDG_RUNTIME_DIR": "/run/user/1000"]) { $1 }, puffd: "/opt/puffd")
        #expect(findings[0].next?.hasPrefix("remove \(runtime)") == true)
    }

    @Test func theUserFileFollowsHOMEWhenXDGDataHomeIsUnset() {
        #expect(
            ActivationCheck.userFile(environment: ["HOME": "/home/you/"])
                == "/home/you/.local/share/dbus-1/services/org.freedesktop.secrets.service")
    }
}
