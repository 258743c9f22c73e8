// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// Check 4: the vault folder 0700 and its files closed to others, all owned by the user.
struct VaultCheckTests {
    static let folder = "/home/me/.local/share/puff"
    let location = VaultCheck.Location(folder: folder, source: "puffd's", inUse: true)
    let privateFolder = FileFacts(path: folder, isDirectory: true, permissions: 0o700, owner: 1000)
    let files = [
        FileFacts(path: "\(folder)/catalog", permissions: 0o600, owner: 1000),
        FileFacts(path: "\(folder)/00ab.journal", permissions: 0o600, owner: 1000),
    ]

    @Test func aPrivateFolderWithPrivateFilesIsOK() {
        let findings = VaultCheck.findings(location: location, folder: privateFolder, entries: files, userID: 1000)
        #expect(
            findings == [DoctorFinding(.ok, "vault \(Self.folder) (puffd's): folder 0700, 2 file(s) closed to others")])
    }

    @Test func aFolderOthersCanListFailsWithTheChmodThatFixesIt() {
        var folder = privateFolder
        folder.permissions = 0o755
        let findings = VaultCheck.findings(location: location, folder: folder, entries: files, userID: 1000)
        #expect(findings.map(\.mark) == [.fail])
        #expect(findings[0].details == ["\(Self.folder) is 0755"])
        #expect(findings[0].next == "`chmod -R go-rwx \(Self.folder)`")
    }

    @Test func aFileOthersCanReadFailsAndIsNamed() {
        let open = files + [FileFacts(path: "\(Self.folder)/x.journal", permissions: 0o644, owner: 1000)]
        let findings = VaultCheck.findings(location: location, folder: privateFolder, entries: open, userID: 1000)
        #expect(findings.map(\.mark) == [.fail])
        #expect(findings[0].details == ["\(Self.folder)/x.journal is 0644"])
    }

    @Test func anotherUsersFileFailsWithChown() {
        let foreign = files + [FileFacts(path: "\(Self.folder)/y", permissions: 0o600, owner: 0)]
        let findings = VaultCheck.findings(location: location, folder: privateFolder, entries: foreign, userID: 1000)
        #expect(findings.map(\.mark) == [.fail, .ok])
        #expect(findings[0].details == ["\(Self.folder)/y (uid 0)"])
        #expect(findings[0].next?.hasPrefix("`chown -R 1000 \(Self.folder)`") == true)
    }

    @Test func aMissingFolderIsFineBeforeTheFirstStartButNotWhilePuffdUsesIt() {
        let unused = VaultCheck.Location(folder: Self.folder, source: "the default", inUse: false)
        #expect(VaultCheck.findings(location: unused, folder: nil, entries: [], userID: 1000).map(\.mark) == [.ok])
        #expect(VaultCheck.findings(location: location, folder: nil, entries: [], userID: 1000).map(\.mark) == [.fail])
    }

    @Test func aFileWhereTheFolderShouldBeAndLinksAreReported() {
        let file = FileFacts(path: Self.folder, permissions: 0o600, owner: 1000)
        #expect(VaultCheck.findings(location: location, folder: file, entries: [], userID: 1000).map(\.mark) == [.fail])
        let link = FileFacts(path: "\(Self.folder)/l", isSymlink: true, permissions: 0o777, owner: 1000)
        let findings = VaultCheck.findings(location: location, folder: privateFolder, entries: [link], userID: 1000)
        #expect(findings.map(\.mark) == [.ok, .warn])
    }

    @Test func pathsWithSpacesAreQuotedInTheSteps() {
        #expect(VaultCheck.quoted("/home/me/my vault") == "'/home/me/my vault'")
        #expect(VaultCheck.quoted("/home/me/.local/share/puff") == "/home/me/.local/share/puff")
    }
}
