// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import PuffClient

/// What doctor reads from disk: activation files in a temporary XDG_DATA_HOME and XDG_DATA_DIRS,
/// and the modes of a real vault folder.
struct DoctorProbeTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("puff-doctor-\(UUID().uuidString)").path

    func write(_ text: String, to path: String, mode: Int = 0o644) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func probe(_ environment: [String: String]) -> DoctorProbe {
        DoctorProbe(connection: ConnectionOptions(), environment: environment)
    }

    @Test func activationFilesAreFoundInPrecedenceOrderByTheNameTheyDeclare() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = [
            "HOME": "\(root)/home", "XDG_DATA_HOME": "\(root)/home/data", "XDG_DATA_DIRS": "\(root)/a:\(root)/b",
        ]
        try write(ActivationCheckTests.gnomeKeyring, to: "\(root)/b/dbus-1/services/org.freedesktop.secrets.service")
        // Any file name counts outside $XDG_RUNTIME_DIR, as long as Name= says so.
        try write(
            "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/usr/bin/keepassxc\n",
            to: "\(root)/a/dbus-1/services/keepassxc-secrets.service")
        try write(
            "[D-BUS Service]\nName=org.gnome.keyring\nExec=/usr/bin/gnome-keyring-daemon\n",
            to: "\(root)/a/dbus-1/services/org.gnome.keyring.service")
        let before = probe(environment).activationFiles().filter { $0.path.hasPrefix(root) }
        #expect(before.map(\.provider) == [.keepassxc, .gnomeKeyring])

        try write(
            ActivationCheck.puffFileText(puffd: "/usr/libexec/puff/puffd"),
            to: ActivationCheck.userFile(environment: environment))
        let after = probe(environment).activationFiles()
        #expect(after.first?.provider == .puff, "the user's own file comes first")
        #expect(after.first?.path == "\(root)/home/data/dbus-1/services/org.freedesktop.secrets.service")
    }

    /// Within a folder the files come in directory order, as dbus-daemon reads them, not with the
    /// one named after the bus name first.
    @Test func withinAFolderFilesComeInDirectoryOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = ["HOME": "\(root)/home", "XDG_DATA_HOME": "\(root)/data", "XDG_DATA_DIRS": "\(root)/a"]
        let folder = "\(root)/a/dbus-1/services"
        try write(ActivationCheckTests.gnomeKeyring, to: "\(folder)/org.freedesktop.secrets.service")
        for name in ["io.puff.Secrets", "zz", "aa", "m"] {
            try write(ActivationCheck.puffFileText(puffd: "/usr/libexec/puff/puffd"), to: "\(folder)/\(name).service")
        }
        let found = probe(environment).activationFiles().filter { $0.path.hasPrefix(root) }.map(\.path)
        #expect(found == DoctorProbe.list(folder).map { "\(folder)/\($0)" })
        #expect(found.count == 5)
    }

    @Test func inTheRuntimeFolderOnlyTheFileNamedAfterTheBusNameCounts() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = ["HOME": "\(root)/home", "XDG_RUNTIME_DIR": "\(root)/run", "XDG_DATA_DIRS": "\(root)/none"]
        try write(ActivationCheckTests.gnomeKeyring, to: "\(root)/run/dbus-1/services/other-name.service")
        #expect(probe(environment).activationFiles().filter { $0.path.hasPrefix(root) }.isEmpty)
        try write(ActivationCheckTests.gnomeKeyring, to: "\(root)/run/dbus-1/services/org.freedesktop.secrets.service")
        #expect(probe(environment).activationFiles().first?.path.hasPrefix("\(root)/run/") == true)
    }

    @Test func theDefaultVaultFolderIsCheckedWithItsRealModes() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = ["HOME": "\(root)/home", "XDG_DATA_HOME": "\(root)/data"]
        let vault = "\(root)/data/puff"
        // The lock file: its contents are never read, so only its mode counts (a catalog of "x"
        // would be damaged, which the files' own check reports).
        try write("x", to: "\(vault)/lock", mode: 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: vault)
        #expect(probe(environment).vaultFindings(nil).map(\.mark) == [.ok, .ok])
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: "\(vault)/lock")
        let findings = probe(environment).vaultFindings(nil)
        #expect(findings.map(\.mark) == [.fail, .ok])
        #expect(findings.first?.details == ["\(vault)/lock is 0640"])
    }

    @Test func aMemoryVaultHasNothingOnDiskToCheck() {
        let status = VaultStatus(isInitialized: true, store: "memory", dataDirectory: "", version: "", collections: [])
        #expect(probe([:]).vaultFindings(status) == [VaultCheck.memoryFinding(store: "memory")])
    }
}
