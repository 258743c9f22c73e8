// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Deleting a collection needs the person, and what is deleted can be restored (issue 24 items 18
/// and 24): the built puffd on a file vault, python secretstorage's `Collection.Delete` and its
/// prompt, the test pinentry answering `CONFIRM`, `puffctl` with no terminal, and `secret-tool`.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct CollectionDeletionTests {
    static let login = "/org/freedesktop/secrets/collection/login"
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-delete-\(UUID().uuidString)")
    var vault: URL { folder.appendingPathComponent("vault") }
    var answers: URL { folder.appendingPathComponent("answers") }
    var shown: URL { folder.appendingPathComponent("pinentry.log") }

    /// puffd on a file vault with `order` as prompters; the test pinentry answers `script`.
    func daemon(order: [String], answering script: [String] = []) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pinentry = ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path
        let config = """
            [vault]
            data_dir = "\(vault.path)"
            kdf = "interactive"
            [prompts]
            order = [\(order.map { "\"\($0)\"" }.joined(separator: ", "))]
            timeout = 600
            pinentry = "\(pinentry)"
            """
        let file = folder.appendingPathComponent("puffd.toml")
        try config.write(to: file, atomically: true, encoding: .utf8)
        try script.joined(separator: "\n").write(to: answers, atomically: true, encoding: .utf8)
        return try await TestDaemon(
            arguments: ["--config", file.path, "--vault", "file"],
            environment: [
                "DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers.path, "FAKE_PINENTRY_LOG": shown.path,
            ])
    }

    /// puffctl without a controlling terminal (`setsid`), as from a script or a service.
    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", VaultFlowTests.puffctl] + arguments, environment: puffd.clientEnvironment,
            input: Data(input.utf8))
    }

    /// `puffctl init` with `passcode`, then `count` items stored by secret-tool in the default collection.
    func prepare(_ puffd: TestDaemon, passcode: String = "right pass", items count: Int) async throws {
        let initialized = try await puffctl(puffd, ["init", "--stdin"], input: passcode + "\n")
        #expect(initialized.status == 0, "\(initialized.output)")
        for number in 0..<count {
            let stored = try await secretTool(
                puffd, ["store", "--label=item \(number)", "app", "delete-e2e", "n", "\(number)"],
                input: "secret-\(number)")
            #expect(stored.status == 0, "\(stored.output)")
        }
    }

    func secretTool(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    /// How many of the `count` items secret-tool reads back with their secrets (a count, so a
    /// failure prints no secret).
    func readable(_ puffd: TestDaemon, count: Int) async throws -> Int {
        var found = 0
        for number in 0..<count {
            let result = try await secretTool(puffd, ["lookup", "app", "delete-e2e", "n", "\(number)"])
            if result.status == 0, result.output == "secret-\(number)" { found += 1 }
        }
        return found
    }

    /// python secretstorage's Delete of `path`, its prompt run if one comes back.
    func clientDelete(_ puffd: TestDaemon, _ path: String = Self.login) async throws -> [String: Any] {
        let script = ClientDriver.directory.appendingPathComponent("delete_collection.py").path
        let result = try await ChildProcess.run(
            "/usr/bin/python3", [script, path], environment: puffd.clientEnvironment)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return try #require(object as? [String: Any], "\(result.output)")
    }

    /// The collections `puffctl collection list --json` shows: id → item count.
    func listed(_ puffd: TestDaemon) async throws -> [String: Int] {
        try await entries(puffd).reduce(into: [:]) { $0[$1["id"] as? String ?? ""] = $1["items"] as? Int ?? -1 }
    }

    /// `puffctl collection list --json` as JSON objects.
    func entries(_ puffd: TestDaemon) async throws -> [[String: Any]] {
        let result = try await puffctl(puffd, ["collection", "list", "--json"])
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]], "\(result.output)")
    }

    /// The vault folder's files (not the lock), name → size.
    func files() throws -> [String: Int] {
        var found: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: vault.path) where name != "lock" {
            let attributes = try FileManager.default.attributesOfItem(atPath: vault.appendingPathComponent(name).path)
            found[name] = (attributes[.size] as? Int) ?? -1
        }
        return found
    }

    @Test func aClientsDeleteOfALockedLoginWithNobodyToAskLeavesItAndItsFiles() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(order: ["none"])
        try await prepare(puffd, items: 3)
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        let before = try files()
        let locked = try await clientDelete(puffd)
        #expect(locked["prompted"] as? Bool == true && locked["dismissed"] as? Bool == true, "\(locked)")
        #expect(try files() == before, "no file of the vault changed")
        #expect(try await listed(puffd)["login"] == 3)
        #expect(puffd.log.contains("Nothing was deleted. To delete it, run: puffctl collection delete login"))

        // Unlocked, a non-empty collection needs the person just the same.
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "right pass\n").status == 0)
        let unlocked = try await clientDelete(puffd)
        #expect(unlocked["dismissed"] as? Bool == true, "\(unlocked)")
        #expect(try await readable(puffd, count: 3) == 3)
        #expect(try await listed(puffd)["login"] == 3)
    }

    @Test func aDismissedPromptKeepsTheCollectionAndAConfirmedOneSetsItAsideForRestore() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(order: ["pinentry", "none"], answering: ["CANCEL", "OK"])
        try await prepare(puffd, items: 3)
        let kept = try await clientDelete(puffd)
        #expect(kept["dismissed"] as? Bool == true, "\(kept)")
        #expect(try await listed(puffd)["login"] == 3)
        let log = (try? String(contentsOf: shown, encoding: .utf8)) ?? ""
        #expect(log.contains("wants to delete the collection “Login” and its 3 items."), "\(log)")
        #expect(log.contains("SETOK _Delete") && log.contains("SETCANCEL _Keep"), "\(log)")

        let deleted = try await clientDelete(puffd)
        #expect(deleted["dismissed"] as? Bool == false && deleted["error"] as? String == "", "\(deleted)")
        #expect(try await listed(puffd)["login"] == nil)
        // Set aside, sealed, in a private folder: nothing of login is left beside the catalog.
        #expect(try files().keys.filter { $0.hasSuffix(".header") || $0.hasSuffix(".journal") }.isEmpty)
        let deletedFolder = vault.appendingPathComponent("deleted").path
        let mode = try FileManager.default.attributesOfItem(atPath: deletedFolder)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        let list = try await puffctl(puffd, ["collection", "restore"])
        #expect(list.status == 0 && list.output.contains("login  3 "), "\(list.output)")
        let restored = try await puffctl(puffd, ["collection", "restore", "login"])
        #expect(restored.status == 0 && restored.output.contains("Restored 'login', locked"), "\(restored.output)")
        #expect(try await puffctl(puffd, ["unlock", "login", "--stdin"], input: "right pass\n").status == 0)
        #expect(try await readable(puffd, count: 3) == 3, "every item is back")
        // The deletion was audited in the collection's own log, back with it.
        let audit = try await puffctl(puffd, ["audit"])
        #expect(audit.output.contains("delete-collection"), "\(audit.output)")
        #expect(try await puffctl(puffd, ["collection", "restore"]).output.contains("No deleted collections"))
    }

    @Test func aControlCallWithNoPasscodeAndNobodyToAskDeletesNothingEvenUnlocked() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(order: ["none"])
        try await prepare(puffd, items: 2)
        let script = ClientDriver.directory.appendingPathComponent("control_delete.py").path
        let hostile = try await ChildProcess.run(
            "/usr/bin/python3", [script, "login"], environment: puffd.clientEnvironment)
        #expect(hostile.output.contains("nobody confirmed deleting login"), "\(hostile.output)")
        #expect(try await listed(puffd)["login"] == 2)
        // puffctl without a terminal and without a passcode is refused the same way.
        let forced = try await puffctl(puffd, ["collection", "delete", "login", "--force"])
        #expect(forced.status == 1 && forced.output.contains("nobody confirmed"), "\(forced.output)")
        #expect(try await readable(puffd, count: 2) == 2)
        let withPasscode = try await puffctl(
            puffd, ["collection", "delete", "login", "--force", "--stdin"], input: "right pass\n")
        #expect(withPasscode.status == 0, "\(withPasscode.output)")
        #expect(try await listed(puffd)["login"] == nil)
    }

    @Test func puffctlAsksBeforeDeletingNeedsALockedOnesPasscodeAndInitMakesANewDefaultLogin() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(order: ["none"])
        try await prepare(puffd, items: 2)
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)

        let unasked = try await puffctl(puffd, ["collection", "delete", "login"])
        #expect(unasked.status == 1 && unasked.output.contains("pass --force"), "\(unasked.output)")
        let wrong = try await puffctl(puffd, ["collection", "delete", "login", "--force", "--stdin"], input: "nope\n")
        #expect(wrong.status == 2, "\(wrong.output)")
        #expect(try await listed(puffd)["login"] == 2)

        let deleted = try await puffctl(
            puffd, ["collection", "delete", "login", "--force", "--stdin"], input: "right pass\n")
        #expect(deleted.status == 0, "\(deleted.output)")
        #expect(
            deleted.output.contains("Deleted 'login' (“Login”, 2 items); `puffctl collection restore login`")
                && deleted.output.contains("within 7 days"), "\(deleted.output)")
        #expect(try await listed(puffd).isEmpty)

        // The vault has no default now: init makes a new login, the default, and secret-tool stores.
        let again = try await puffctl(puffd, ["init", "--stdin"], input: "new pass 1\n")
        #expect(again.status == 0, "\(again.output)")
        let made = try await entries(puffd)
        #expect(made.map { $0["id"] as? String } == ["login"] && made.first?["default"] as? Bool == true, "\(made)")
        let stored = try await secretTool(puffd, ["store", "--label=after", "app", "after-e2e"], input: "after")
        #expect(stored.status == 0, "\(stored.output)")
        #expect(try await secretTool(puffd, ["lookup", "app", "after-e2e"]).output == "after")
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "new pass 1\n").status != 0)
        // The old login waits for the new one to go.
        let blocked = try await puffctl(puffd, ["collection", "restore", "login"])
        #expect(blocked.status != 0 && blocked.output.contains("a collection named login exists"), "\(blocked.output)")
    }
}
