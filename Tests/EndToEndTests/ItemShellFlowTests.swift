// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl add`, `edit`, `rm`, `search`, `generate` and `--version` against the built puffd,
/// each result checked by another client: `secret-tool` and python secretstorage see what
/// puffctl wrote. Secrets are compared as Booleans, never printed.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ItemShellFlowTests {
    let commands = VaultFlowTests()

    func daemon() async throws -> TestDaemon {
        let puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "item pass\n").status == 0)
        return puffd
    }

    /// puffctl with `input` on standard input, raw bytes, and no controlling terminal.
    func puffctl(_ puffd: TestDaemon, _ arguments: [String], bytes input: [UInt8] = []) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", VaultFlowTests.puffctl] + arguments, environment: puffd.clientEnvironment,
            input: Data(input))
    }

    /// What python secretstorage sees of the item with exactly `attributes` (``item_oracle.py``).
    func oracle(
        _ puffd: TestDaemon, attributes: [String: String], label: String, secret: [UInt8]
    ) async throws -> [String: Any] {
        let request: [String: Any] = [
            "attributes": attributes, "label": label,
            "secret_hex": secret.map { String(format: "%02x", $0) }.joined(),
        ]
        let script = ClientDriver.directory.appendingPathComponent("item_oracle.py").path
        let run = try await ChildProcess.run(
            ClientDriver.python, [script], environment: puffd.clientEnvironment,
            input: try JSONSerialization.data(withJSONObject: request))
        #expect(run.status == 0, "item_oracle.py failed: \(run.output.prefix(400))")
        return (try? JSONSerialization.jsonObject(with: run.bytes) as? [String: Any]) ?? [:]
    }

    @Test func addStoresWhatSecretToolAndSecretstorageFindExactly() async throws {
        let puffd = try await daemon()
        let added = try await commands.puffctl(
            puffd, ["add", "Mail ✉", "service=imap-e2e", "user=alice", "--stdin"], input: "s3cret value\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(added.output.contains("login/1") && !added.output.contains("s3cret"), "\(added.output)")
        let lookup = try await commands.secretTool(puffd, ["lookup", "service", "imap-e2e", "user", "alice"])
        #expect(lookup.bytes == Data("s3cret value".utf8), "one trailing newline dropped, the rest kept")

        // Every byte value (the last one not a newline) arrives exactly, as a real client reads it.
        let binary = (0...255).map(UInt8.init).reversed().map { $0 }
        let stored = try await puffctl(puffd, ["add", "", "service=binary-e2e", "--stdin"], bytes: binary)
        #expect(stored.status == 0, "\(stored.output)")
        let seen = try await oracle(puffd, attributes: ["service": "binary-e2e"], label: "", secret: binary)
        #expect(seen["count"] as? Int == 1)
        #expect(seen["secret_ok"] as? Bool == true && seen["attributes_ok"] as? Bool == true, "\(seen)")

        // Nothing to read the secret from: no terminal and no --stdin; nothing is stored.
        let none = try await puffctl(puffd, ["add", "No secret", "service=none-e2e"])
        #expect(none.status == 1 && none.output.contains("--stdin"), "\(none.output)")
        #expect(try await commands.secretTool(puffd, ["lookup", "service", "none-e2e"]).bytes.isEmpty)

        // The write is audited as any client's: a create entry for each item.
        let audit = try await commands.puffctl(puffd, ["audit", "--json"])
        #expect(audit.output.components(separatedBy: "\"create\"").count - 1 == 2, "\(audit.output.prefix(600))")
    }

    @Test func aGeneratedSecretHasTheLengthAndCharsetAskedAndIsNeverShown() async throws {
        let puffd = try await daemon()
        let added = try await commands.puffctl(
            puffd, ["add", "Generated", "service=gen-e2e", "--generate", "--length", "40", "--charset", "digits"])
        #expect(added.status == 0, "\(added.output)")
        let secret = try await commands.secretTool(puffd, ["lookup", "service", "gen-e2e"]).output
        #expect(secret.count == 40 && secret.allSatisfy(\.isASCII) && secret.allSatisfy(\.isNumber))
        #expect(!added.output.contains(secret), "add --generate printed the secret")

        let printed = try await commands.puffctl(puffd, ["generate", "30", "--charset", "abc"])
        #expect(printed.status == 0)
        let password = printed.output.dropLast()
        #expect(printed.output.last == "\n" && password.count == 30 && password.allSatisfy("abc".contains))
    }

    @Test func editChangesWhatSecretstorageSees() async throws {
        let puffd = try await daemon()
        let store = try await commands.secretTool(
            puffd, ["store", "--label=Old", "service", "edit-e2e", "user", "alice", "stale", "x"], input: "old")
        #expect(store.status == 0)
        let edited = try await commands.puffctl(
            puffd,
            ["edit", "service=edit-e2e", "--label", "New label", "--set", "user=bob", "--unset", "stale", "--stdin"],
            input: "new secret\n")
        #expect(edited.status == 0, "\(edited.output)")
        #expect(edited.output.contains("attributes, label, secret"), "\(edited.output)")
        let seen = try await oracle(
            puffd, attributes: ["service": "edit-e2e", "user": "bob"], label: "New label",
            secret: Array("new secret".utf8))
        #expect(seen["count"] as? Int == 1, "\(seen)")
        #expect(seen["label_ok"] as? Bool == true, "\(seen)")
        #expect(seen["attributes_ok"] as? Bool == true, "the unset attribute is gone: \(seen)")
        #expect(seen["secret_ok"] as? Bool == true, "\(seen)")

        // A locked collection is not edited; puffctl says how to unlock it.
        #expect(try await commands.puffctl(puffd, ["lock"]).status == 0)
        let locked = try await commands.puffctl(puffd, ["edit", "login/1", "--label", "Other"])
        #expect(locked.status == 3 && locked.output.contains("puffctl unlock login"), "\(locked.output)")
    }

    @Test func rmRefusesWithoutATerminalUnlessForcedAndAsksOnOne() async throws {
        let puffd = try await daemon()
        for name in ["keep", "ask", "force"] {
            let store = try await commands.secretTool(
                puffd, ["store", "--label=Item \(name)", "app", "rm-e2e", "which", name], input: "s-\(name)")
            #expect(store.status == 0)
        }
        let refused = try await puffctl(puffd, ["rm", "which=keep"])
        #expect(refused.status == 1 && refused.output.contains("--force"), "\(refused.output)")
        let kept = try await commands.secretTool(puffd, ["lookup", "app", "rm-e2e", "which", "keep"])
        #expect(kept.bytes == Data("s-keep".utf8), "refusing deleted nothing")

        // On a terminal (script(1) gives puffctl one) the label is shown and only yes deletes.
        let no = try await onTerminal(puffd, "rm which=ask", typing: "n\n")
        #expect(no.output.contains("Delete 'Item ask' (login/2)") && no.output.contains("Nothing was deleted"))
        #expect(try await commands.secretTool(puffd, ["lookup", "which", "ask"]).bytes == Data("s-ask".utf8))
        let yes = try await onTerminal(puffd, "rm which=ask", typing: "y\n")
        #expect(yes.output.contains("Deleted 'Item ask' (login/2)"), "\(yes.output)")
        #expect(try await commands.secretTool(puffd, ["lookup", "which", "ask"]).bytes.isEmpty)

        let forced = try await puffctl(puffd, ["rm", "login/3", "--force"])
        #expect(forced.status == 0 && forced.output.contains("Deleted 'Item force' (login/3)"), "\(forced.output)")
        #expect(try await commands.secretTool(puffd, ["lookup", "which", "force"]).bytes.isEmpty)
        let audit = try await commands.puffctl(puffd, ["audit", "--json"])
        #expect(audit.output.components(separatedBy: "\"delete\"").count - 1 == 2, "\(audit.output.prefix(600))")
    }

    /// puffctl `command` on a pseudo-terminal of its own (script(1)), with `typing` as keystrokes.
    func onTerminal(_ puffd: TestDaemon, _ command: String, typing: String) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            "/usr/bin/setsid", ["-w", "/usr/bin/script", "-qec", "\(VaultFlowTests.puffctl) \(command)", "/dev/null"],
            environment: puffd.clientEnvironment, input: Data(typing.utf8))
    }

    @Test func searchIgnoresCaseSkipsLockedCollectionsAndEscapesControlCharacters() async throws {
        let puffd = try await daemon()
        for (label, attributes) in [
            ("GitHub token", ["service", "search-e2e", "user", "alice"]),
            ("Mail", ["service", "search-e2e", "server", "mail.EXAMPLE.org"]),
            ("Evil\u{1b}[2J", ["service", "other-e2e"]),
        ] {
            let store = try await commands.secretTool(puffd, ["store", "--label=\(label)"] + attributes, input: "s")
            #expect(store.status == 0)
        }
        let byLabel = try await commands.puffctl(puffd, ["search", "github"])
        #expect(byLabel.status == 0 && byLabel.output.contains("login/1") && !byLabel.output.contains("login/2"))
        let byValue = try await commands.puffctl(puffd, ["search", "Example.Org", "--json"])
        let found = try JSONSerialization.jsonObject(with: byValue.bytes) as? [[String: Any]]
        #expect(found?.map { $0["label"] as? String } == ["Mail"], "\(byValue.output)")
        let evil = try await commands.puffctl(puffd, ["search", "evil"])
        #expect(evil.output.contains("\\u001b[2J") && !evil.output.contains("\u{1b}"), "\(evil.output)")
        let none = try await commands.puffctl(puffd, ["search", "nothing-like-this"])
        #expect(none.status == 4, "\(none.output)")

        #expect(try await commands.puffctl(puffd, ["lock"]).status == 0)
        let locked = try await commands.puffctl(puffd, ["search", "github"])
        #expect(locked.status == 4 && locked.output.contains("login is locked and was not searched"))
    }

    @Test func mvMovesTheItemWholeAndSecretToolStillFindsIt() async throws {
        let puffd = try await daemon()
        let created = try await commands.puffctl(
            puffd, ["collection", "create", "Work", "--stdin"], input: "work pass\n")
        #expect(created.status == 0, "\(created.output)")
        let store = try await commands.secretTool(
            puffd, ["store", "--label=Moving ✈", "service", "mv-e2e", "user", "alice"], input: "moved secret")
        #expect(store.status == 0)
        let moved = try await commands.puffctl(puffd, ["mv", "service=mv-e2e", "Work"])
        #expect(moved.status == 0 && moved.output.contains("from login/1 to Work/1"), "\(moved.output)")
        let show = try await commands.puffctl(puffd, ["show", "service=mv-e2e", "--json"])
        let object = try JSONSerialization.jsonObject(with: show.bytes) as? [String: Any]
        #expect(object?["collection"] as? String == "Work" && object?["label"] as? String == "Moving ✈")
        #expect(object?["attributes"] as? [String: String] == ["service": "mv-e2e", "user": "alice"])
        let lookup = try await commands.secretTool(puffd, ["lookup", "service", "mv-e2e"])
        #expect(lookup.bytes == Data("moved secret".utf8), "the secret arrived exactly")
        let audit = try await commands.puffctl(puffd, ["audit", "--json"])
        #expect(
            audit.output.contains("\"create\"") && audit.output.contains("\"delete\""), "\(audit.output.prefix(600))")

        // Into a locked collection: exit 3, the item stays where it is.
        #expect(try await commands.puffctl(puffd, ["lock", "login"]).status == 0)
        let locked = try await commands.puffctl(puffd, ["mv", "Work/1", "login"])
        #expect(locked.status == 3 && locked.output.contains("puffctl unlock login"), "\(locked.output)")
        let missing = try await commands.puffctl(puffd, ["mv", "Work/1", "nowhere"])
        #expect(missing.status == 4, "\(missing.output)")
        #expect(
            try await commands.secretTool(puffd, ["lookup", "service", "mv-e2e"]).bytes == Data("moved secret".utf8))
    }

    /// A protected item moves only when the person confirms, as a read would need: puffctl goes
    /// through puffd's access gate like any client (the test pinentry answers the CONFIRM).
    @Test func mvOfAProtectedItemAsksThePersonFirst() async throws {
        let access = AccessFlowTests()
        defer { try? FileManager.default.removeItem(at: access.folder) }
        let puffd = try await access.daemon(order: ["pinentry", "none"], answering: ["CANCEL", "OK"])
        try await access.prepare(puffd, firstRun: true)
        #expect(try await access.puffctl(puffd, ["protect", "service=access-e2e"]).status == 0)
        let created = try await commands.puffctl(
            puffd, ["collection", "create", "Work", "--stdin"], input: "work pass\n")
        #expect(created.status == 0, "\(created.output)")

        let refused = try await access.puffctl(puffd, ["mv", "service=access-e2e", "Work"])
        #expect(refused.status == 1 && refused.output.contains("not moved"), "\(refused.output)")
        let stayed = try await access.puffctl(puffd, ["show", "service=access-e2e", "--json"])
        let before = try JSONSerialization.jsonObject(with: stayed.bytes) as? [String: Any]
        #expect(before?["collection"] as? String == "login", "\(stayed.output)")

        let moved = try await access.puffctl(puffd, ["mv", "service=access-e2e", "Work"])
        #expect(moved.status == 0 && moved.output.contains("to Work/1"), "\(moved.output)")
        // Its protection came along: the moved item is still protected.
        let listed = try await access.puffctl(puffd, ["access", "list", "--json"])
        let entries = try JSONSerialization.jsonObject(with: listed.bytes) as? [[String: Any]]
        let entry = entries?.first { ($0["path"] as? String)?.hasSuffix("/collection/Work/1") == true }
        #expect(entry?["protected"] as? Bool == true, "\(listed.output)")
    }

    @Test func bothBinariesReportTheVersionPuffdServes() async throws {
        let puffd = try await daemon()
        let client = try await commands.puffctl(puffd, ["--version"])
        let daemonVersion = try await ChildProcess.run(
            TestDaemon.executablePath, ["--version"], environment: puffd.clientEnvironment)
        let status = try await commands.puffctl(puffd, ["status", "--json"])
        let vault = (try JSONSerialization.jsonObject(with: status.bytes) as? [String: Any])?["vault"] as? [String: Any]
        let served = try #require(vault?["version"] as? String)
        #expect(!served.isEmpty)
        #expect(client.status == 0 && client.output == served + "\n", "\(client.output)")
        #expect(daemonVersion.status == 0 && daemonVersion.output == served + "\n", "\(daemonVersion.output)")
    }

    @Test func completionsOfferCollectionsAndItemsFromTheRunningPuffd() async throws {
        let puffd = try await daemon()
        let store = try await commands.secretTool(puffd, ["store", "--label=One", "service", "comp-e2e"], input: "s")
        #expect(store.status == 0)
        // What the installed completion scripts run: the argument, word index, cursor, then the words.
        let collections = try await commands.puffctl(
            puffd, ["---completion", "add", "--", "--collection", "3", "0", "puffctl", "add", "--collection", "lo"])
        #expect(collections.output.split(separator: "\n") == ["login"], "\(collections.output)")
        let items = try await commands.puffctl(
            puffd, ["---completion", "rm", "--", "positional@0", "2", "0", "puffctl", "rm", ""])
        #expect(items.output.split(separator: "\n") == ["login/1"], "\(items.output)")
    }
}
