// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// What `make install` puts down, through `scripts/install.sh` (the part after the build) with the
/// debug binaries of this test run, into a temporary DESTDIR: `make install` itself builds for
/// release, which costs minutes, and `make test` runs it once more with CONFIGURATION=debug.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct InstallTests {
    let destination = FileManager.default.temporaryDirectory.appendingPathComponent("puff-install-\(UUID().uuidString)")
        .path
    static let script = TestBus.repositoryRoot.appendingPathComponent("scripts/install.sh").path
    static let binaries = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent().path

    /// A stand-in for pam_puff.so (`make pam` builds the real one): this suite checks where files go.
    static let pamModule: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("puff-install-pam_puff.so").path
        FileManager.default.createFile(atPath: path, contents: Data("pam module".utf8))
        return path
    }()

    func install(prefix: String, _ arguments: [String] = []) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/bin/bash", [Self.script] + arguments,
            environment: [
                "BIN": Self.binaries, "PREFIX": prefix, "DESTDIR": destination, "PATH": "/usr/bin:/bin",
                "PAM_MODULE": Self.pamModule, "MULTIARCH": "x86_64-linux-gnu",
            ])
    }

    /// Every regular file under the destination, relative to it, with its permission bits, and
    /// every symbolic link, as ``link``.
    func tree() throws -> [String: Int] {
        var files: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(atPath: destination)
        while let path = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(destination)/\(path)")
            switch attributes[.type] as? FileAttributeType {
            case .typeRegular?: files["/" + path] = (attributes[.posixPermissions] as? Int) ?? 0
            case .typeSymbolicLink?: files["/" + path] = Self.link
            default: continue
            }
        }
        return files
    }

    /// What ``tree()`` records for a symbolic link.
    static let link = -1

    func text(_ path: String) -> String {
        (try? String(contentsOfFile: destination + path, encoding: .utf8)) ?? ""
    }

    @Test func installUnderUsrLocalPutsDownTheProgramsPagesCompletionsAndInterfaces() async throws {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await install(prefix: "/usr/local")
        #expect(result.status == 0, "\(result.output)")
        #expect(
            try tree() == [
                "/usr/local/bin/puffctl": 0o755, "/usr/local/libexec/puff/puffd": 0o755,
                "/usr/local/share/man/man1/puffctl.1": 0o644, "/usr/local/share/man/man8/puffd.8": 0o644,
                "/usr/local/share/bash-completion/completions/puffctl": 0o644,
                "/usr/local/share/zsh/site-functions/_puffctl": 0o644,
                "/usr/local/share/fish/vendor_completions.d/puffctl.fish": 0o644,
                "/usr/local/share/dbus-1/interfaces/io.puff.Control1.xml": 0o644,
                "/usr/local/share/dbus-1/interfaces/io.puff.Agent1.xml": 0o644,
                "/usr/local/share/dbus-1/services/io.puff.Secrets.service": 0o644,
                "/usr/local/share/dbus-1/services/io.puff.Control.service": 0o644,
                "/usr/local/share/xdg-desktop-portal/portals/puff.portal": 0o644,
                "/usr/local/lib/systemd/user/puffd.service": 0o644,
                "/usr/local/lib/systemd/user/puff-login.socket": 0o644,
                "/usr/local/lib/systemd/user/sockets.target.wants/puff-login.socket": Self.link,
                "/usr/local/lib/x86_64-linux-gnu/security/pam_puff.so": 0o644,
                "/usr/local/share/pam-configs/puff": 0o644,
            ])
        // The activation file and the unit name puffd where this prefix puts it.
        let activation = text("/usr/local/share/dbus-1/services/io.puff.Secrets.service")
        #expect(activation.contains("Name=org.freedesktop.secrets\n"))
        #expect(activation.contains("Exec=/usr/local/libexec/puff/puffd\n"))
        #expect(activation.contains("SystemdService=puffd.service\n"))
        // puffctl's name starts the same puffd.
        let control = text("/usr/local/share/dbus-1/services/io.puff.Control.service")
        #expect(control.contains("Name=io.puff.Control\n"))
        #expect(control.contains("Exec=/usr/local/libexec/puff/puffd\n"))
        #expect(control.contains("SystemdService=puffd.service\n"))
        #expect(text("/usr/local/lib/systemd/user/puffd.service").contains("ExecStart=/usr/local/libexec/puff/puffd\n"))
        // The login socket is on for every user: the link enables it (dbus-user-session's way).
        #expect(text("/usr/local/lib/systemd/user/puff-login.socket").contains("ListenStream=%t/puff/login.socket\n"))
        #expect(text("/usr/local/lib/systemd/user/puff-login.socket").contains("Service=puffd.service\n"))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(
                atPath: destination + "/usr/local/lib/systemd/user/sockets.target.wants/puff-login.socket")
                == "../puff-login.socket")
        #expect(text("/usr/local/share/pam-configs/puff").contains("Default: no\n"))
        #expect(text("/usr/local/share/man/man8/puffd.8").contains(".Dt PUFFD 8"))
        #expect(text("/usr/local/share/man/man1/puffctl.1").contains(".Dt PUFFCTL 1"))
        // The completions come from the installed puffctl, so they know every subcommand.
        for path in [
            "/usr/local/share/bash-completion/completions/puffctl", "/usr/local/share/zsh/site-functions/_puffctl",
            "/usr/local/share/fish/vendor_completions.d/puffctl.fish",
        ] {
            #expect(text(path).contains("doctor"), "\(path)")
            #expect(text(path).contains("collection"), "\(path)")
        }
        #expect(text("/usr/local/share/zsh/site-functions/_puffctl").hasPrefix("#compdef puffctl"))
        let syntax = try await ChildProcess.run(
            "/bin/bash", ["-n", destination + "/usr/local/share/bash-completion/completions/puffctl"],
            environment: [:])
        #expect(syntax.status == 0, "\(syntax.output)")
        let version = try await ChildProcess.run(
            destination + "/usr/local/bin/puffctl", ["--help"], environment: ["COLUMNS": "100"])
        #expect(version.status == 0 && version.output.contains("USAGE: puffctl"), "the installed puffctl runs")

        let listed = try await install(prefix: "/usr/local", ["--list"])
        #expect(Set(listed.output.split(separator: "\n").map(String.init)) == Set(try tree().keys))
        #expect(try await install(prefix: "/usr/local", ["--uninstall"]).status == 0)
        #expect(try tree().isEmpty, "uninstall removes every file install wrote")
    }

    @Test func underUsrZshCompletionsGoWhereDebiansZshReadsThem() async throws {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        #expect(try await install(prefix: "/usr").status == 0)
        let files = try tree()
        #expect(files["/usr/share/zsh/vendor-completions/_puffctl"] == 0o644)
        #expect(files["/usr/libexec/puff/puffd"] == 0o755)
        #expect(files["/usr/lib/systemd/user/puffd.service"] == 0o644)
        #expect(files["/usr/lib/x86_64-linux-gnu/security/pam_puff.so"] == 0o644)
        #expect(files["/usr/lib/systemd/user/puff-login.socket"] == 0o644)
        // Where xdg-desktop-portal 1.16 reads backends (F1), beside gnome-keyring's file.
        #expect(files["/usr/share/xdg-desktop-portal/portals/puff.portal"] == 0o644)
        #expect(files.count == 17)
    }

    @Test func puffdIsPuffctlUnderASecondNameOnDiskOnceAndRunsAsPuffd() async throws {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        #expect(try await install(prefix: "/usr").status == 0)
        var puffctl = stat()
        var puffd = stat()
        #expect(stat(destination + "/usr/bin/puffctl", &puffctl) == 0)
        #expect(stat(destination + "/usr/libexec/puff/puffd", &puffd) == 0)
        #expect(puffd.st_ino == puffctl.st_ino && puffd.st_dev == puffctl.st_dev && puffd.st_nlink == 2)
        // The name decides what the program is.
        let daemon = try await ChildProcess.run(
            destination + "/usr/libexec/puff/puffd", ["--help"], environment: ["COLUMNS": "100"])
        #expect(daemon.status == 0 && daemon.output.contains("USAGE: puffd"), "\(daemon.output)")
        let client = try await ChildProcess.run(
            destination + "/usr/bin/puffctl", ["--help"], environment: ["COLUMNS": "100"])
        #expect(client.status == 0 && client.output.contains("USAGE: puffctl"), "\(client.output)")
    }

    @Test func withoutBuiltProgramsInstallRefusesAndWritesNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ChildProcess.run(
            "/bin/bash", [Self.script],
            environment: ["BIN": "/nonexistent", "DESTDIR": destination, "PATH": "/usr/bin:/bin"])
        #expect(result.status != 0)
        #expect(result.output.contains("no /nonexistent/puffctl: build first"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func withoutThePAMModuleInstallRefusesAndWritesNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try await ChildProcess.run(
            "/bin/bash", [Self.script],
            environment: [
                "BIN": Self.binaries, "DESTDIR": destination, "PATH": "/usr/bin:/bin", "PAM_MODULE": "/nonexistent.so",
            ])
        #expect(result.status != 0)
        #expect(result.output.contains("no /nonexistent.so: build it first (make pam"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: destination))
    }
}
