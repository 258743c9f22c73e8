// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl backup`, `restore` and `verify` (issue 25 item 3) through the built puffd on a file
/// vault, with `secret-tool` storing and reading the items and `puffctl` without a terminal.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct BackupFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-backup-\(UUID().uuidString)")
    var vault: URL { folder.appendingPathComponent("vault") }
    let deletion = CollectionDeletionTests()

    func daemon() async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = """
            [vault]
            data_dir = "\(vault.path)"
            kdf = "interactive"
            [prompts]
            order = ["none"]
            """
        let file = folder.appendingPathComponent("puffd.toml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        return try await TestDaemon(arguments: ["--config", file.path, "--vault", "file"])
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await deletion.puffctl(puffd, arguments, input: input)
    }

    /// Stores item `number` of the set `set` with secret-tool.
    func store(_ puffd: TestDaemon, _ number: Int, set: String = "backup-e2e-value") async throws -> Int32 {
        try await deletion.secretTool(
            puffd, ["store", "--label=Zebra-label-\(number)", "app", set, "n", "\(number)"],
            input: "Quokka-secret-\(number)"
        ).status
    }

    /// Which of items `0..<count` of `set` secret-tool reads back exactly.
    func readable(_ puffd: TestDaemon, count: Int, set: String = "backup-e2e-value") async throws -> [Int] {
        var found: [Int] = []
        for number in 0..<count {
            let result = try await deletion.secretTool(puffd, ["lookup", "app", set, "n", "\(number)"])
            if result.status == 0, result.output == "Quokka-secret-\(number)" { found.append(number) }
        }
        return found
    }

    func vaultFiles(endingIn suffix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: vault.path).filter { $0.hasSuffix(suffix) }.sorted().map {
            vault.appendingPathComponent($0)
        }
    }

    @Test func aBackupHoldsNoLabelValueOrSecretAndRestoresEveryItemAfterEverythingWasDeleted() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        for number in 0..<5 { #expect(try await store(puffd, number) == 0) }
        let backup = folder.appendingPathComponent("vault.puffbak")
        let made = try await puffctl(puffd, ["backup", backup.path])
        #expect(made.status == 0, "\(made.output)")
        #expect(made.output.contains("backed up 1 collection (5 items), "), "\(made.output)")
        var info = stat()
        #expect(stat(backup.path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // The thief's look: none of what was stored is in the backup's bytes.
        let bytes = try Data(contentsOf: backup)
        for needle in ["Zebra-label", "Quokka-secret", "backup-e2e-value", "Login"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is in the backup")
        }

        let deleted = try await puffctl(
            puffd, ["collection", "delete", "login", "--force", "--stdin"], input: "right pass\n")
        #expect(deleted.status == 0, "\(deleted.output)")
        #expect(try await readable(puffd, count: 5).isEmpty)

        let refused = try await puffctl(puffd, ["restore", backup.path])
        #expect(refused.status == 1 && refused.output.contains("pass --force"), "\(refused.output)")
        let restored = try await puffctl(puffd, ["restore", backup.path, "--force"])
        #expect(restored.status == 0, "\(restored.output)")
        #expect(restored.output.contains("restored 1 collection"), "\(restored.output)")
        let snapshots = try FileManager.default.contentsOfDirectory(
            atPath: vault.appendingPathComponent("snapshots").path)
        #expect(snapshots.count == 1 && snapshots[0].hasSuffix("-restore.puffbak"), "\(snapshots)")
        #expect(restored.output.contains(snapshots.first ?? "-"), "\(restored.output)")

        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await readable(puffd, count: 5) == Array(0..<5))
        let checked = try await puffctl(puffd, ["verify"])
        #expect(checked.status == 0, "\(checked.output)")
    }

    @Test func aFlippedByteInAVaultFileOrABackupMakesVerifyFailNamingTheFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        for number in 0..<3 { #expect(try await store(puffd, number) == 0) }
        let whole = try await puffctl(puffd, ["verify"])
        #expect(whole.status == 0, "\(whole.output)")
        #expect(whole.output.contains("of 1 unlocked collection"), "\(whole.output)")
        let backup = folder.appendingPathComponent("vault.puffbak")
        #expect(try await puffctl(puffd, ["backup", backup.path]).status == 0)
        #expect(try await puffctl(puffd, ["verify", "--backup", backup.path]).status == 0)

        // A byte inside the journal's first record: damage, not a torn tail.
        let journal = try #require(try vaultFiles(endingIn: ".journal").first)
        var bytes = try Data(contentsOf: journal)
        bytes[16 + 20 + 8] ^= 0x40
        try bytes.write(to: journal)
        let damaged = try await puffctl(puffd, ["verify"])
        #expect(damaged.status == 1, "\(damaged.output)")
        #expect(damaged.output.contains("\(journal.path) is damaged at offset 16"), "\(damaged.output)")

        var archive = try Data(contentsOf: backup)
        archive[archive.count / 2] ^= 0x01
        try archive.write(to: backup)
        let flipped = try await puffctl(puffd, ["verify", "--backup", backup.path])
        #expect(
            flipped.status == 1 && flipped.output.contains("\(backup.path) is damaged at offset"), "\(flipped.output)")
        let refused = try await puffctl(puffd, ["restore", backup.path, "--force", "--stdin"], input: "right pass\n")
        #expect(refused.status == 1 && refused.output.contains("nothing was restored"), "\(refused.output)")
    }

    @Test func aBackupTakenWhileAWriterKeepsStoringRestoresToAVaultWithoutDamage() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        let total = 30
        let writer = Task {
            var failures = 0
            for number in 0..<total where try await store(puffd, number, set: "stream") != 0 { failures += 1 }
            return failures
        }
        var backups: [URL] = []
        for round in 0..<4 {
            let backup = folder.appendingPathComponent("during-\(round).puffbak")
            let made = try await puffctl(puffd, ["backup", backup.path])
            #expect(made.status == 0, "\(made.output)")
            backups.append(backup)
        }
        #expect(try await writer.value == 0)
        for backup in backups {
            #expect(try await puffctl(puffd, ["verify", "--backup", backup.path]).status == 0)
        }
        let restored = try await puffctl(
            puffd, ["restore", backups[1].path, "--force", "--stdin"], input: "right pass\n")
        #expect(restored.status == 0, "\(restored.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        let checked = try await puffctl(puffd, ["verify"])
        #expect(checked.status == 0, "\(checked.output)")
        let status = try await puffctl(puffd, ["status"])
        #expect(!status.output.contains("damaged"), "\(status.output)")
        // Whatever the instant, the items are those stored before it, in order: a prefix.
        let found = try await readable(puffd, count: total, set: "stream")
        #expect(found == Array(0..<found.count), "\(found)")
    }

    @Test func repairAndPasswdEachKeepASnapshotAndOnlyTheNewestAreKept() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "first pass\n").status == 0)
        for number in 0..<2 { #expect(try await store(puffd, number) == 0) }
        let snapshots = vault.appendingPathComponent("snapshots")
        let names = { (try? FileManager.default.contentsOfDirectory(atPath: snapshots.path).sorted()) ?? [] }
        #expect(try await puffctl(puffd, ["repair", "login"]).status == 0)
        #expect(names().count == 1 && names()[0].hasSuffix("-repair.puffbak"), "\(names())")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "first pass\n").status == 0)
        let changed = try await puffctl(puffd, ["passwd", "--stdin"], input: "first pass\nsecond pass\n")
        #expect(changed.status == 0, "\(changed.output)")
        let afterPasswd = names()
        #expect(afterPasswd.count == 2 && afterPasswd[1].hasSuffix("-passwd.puffbak"), "\(afterPasswd)")
        let again = try await puffctl(puffd, ["passwd", "--stdin"], input: "second pass\nthird pass\n")
        #expect(again.status == 0, "\(again.output)")
        let repaired = try await puffctl(puffd, ["repair", "login"])
        #expect(repaired.status == 0, "\(repaired.output)")
        #expect(names().count == 3 && names()[0].hasSuffix("-passwd.puffbak"), "\(names())")

        // The snapshot before the re-key takes the collection back to the old passcode.
        let before = snapshots.appendingPathComponent(names()[0])
        let back = try await puffctl(puffd, ["restore", before.path, "--force", "--stdin"], input: "third pass\n")
        #expect(back.status == 0, "\(back.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "third pass\n").status == 2)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "first pass\n").status == 0)
        #expect(try await readable(puffd, count: 2) == [0, 1])
    }

    /// A same-user client (or a script) that calls Restore without the person: refused, audited,
    /// and the vault as it was (an item stored after the backup still reads, no snapshot taken).
    @Test func aRestoreWithoutThePersonIsRefusedAuditedAndChangesNothing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await store(puffd, 0) == 0)
        let backup = folder.appendingPathComponent("vault.puffbak")
        #expect(try await puffctl(puffd, ["backup", backup.path]).status == 0)
        #expect(try await store(puffd, 1) == 0)

        let passed = try await ClientDriver.expectPasses("control_attack.py", ["restore", backup.path], against: puffd)
        #expect(passed == 2)
        let unconfirmed = try await puffctl(puffd, ["restore", backup.path, "--force"])
        #expect(unconfirmed.status != 0 && unconfirmed.output.contains("nobody confirmed"), "\(unconfirmed.output)")
        #expect(try await readable(puffd, count: 2) == [0, 1])
        let snapshots = vault.appendingPathComponent("snapshots").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: snapshots)) ?? []).isEmpty)
        let audit = try await puffctl(puffd, ["audit", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]], "\(audit.output)")
        let restores = entries.filter { $0["action"] as? String == "restore-vault" }.map {
            $0["result"] as? String ?? ""
        }
        #expect(restores == ["dismissed", "refused", "dismissed"], "\(entries)")

        let restored = try await puffctl(puffd, ["restore", backup.path, "--force", "--stdin"], input: "right pass\n")
        #expect(restored.status == 0, "\(restored.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await readable(puffd, count: 2) == [0])
    }

    /// A person's slip: `puffctl backup <vault>/catalog` (or into snapshots/) would rename the
    /// archive over a vault file. Refused; the catalog is as it was.
    @Test func aBackupIsNeverWrittenInsideTheVaultFolder() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "right pass\n").status == 0)
        let catalog = vault.appendingPathComponent("catalog")
        let before = try Data(contentsOf: catalog)
        try FileManager.default.createDirectory(
            at: vault.appendingPathComponent("snapshots"), withIntermediateDirectories: true)
        for target in [catalog.path, vault.appendingPathComponent("snapshots/mine.puffbak").path] {
            let refused = try await puffctl(puffd, ["backup", target])
            #expect(refused.status != 0 && refused.output.contains("is inside the vault folder"), "\(refused.output)")
        }
        #expect(try Data(contentsOf: catalog) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: vault.appendingPathComponent("snapshots").path) == [])
        #expect(try await store(puffd, 0) == 0, "the vault still works")
    }
}
