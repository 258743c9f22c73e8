// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// A locked collection shows clients the same after `Lock` as after a restart (issue 24 item 23):
/// the built puffd on a file vault, read by python secretstorage and `secret-tool search`.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LockedViewFlowTests {
    static let login = "/org/freedesktop/secrets/collection/login"
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-view-\(UUID().uuidString)").path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func run(_ puffd: TestDaemon, _ tool: String, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(tool, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    /// What secretstorage reads of login, as sorted JSON text.
    func view(_ puffd: TestDaemon) async throws -> String {
        let script = ClientDriver.directory.appendingPathComponent("locked_view.py").path
        let result = try await run(puffd, "/usr/bin/python3", [script, Self.login])
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    @Test func aLockedItemShowsClientsTheSameAfterLockAsAfterARestart() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        var puffd = try await daemon()
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["init", "--stdin"], input: "view pass\n").status == 0)
        for user in ["alice", "bob"] {
            let stored = try await run(
                puffd, "/usr/bin/secret-tool", ["store", "--label=mail \(user)", "app", "view-e2e", "user", user],
                input: "secret-\(user)")
            #expect(stored.status == 0, "\(stored.output)")
        }
        let open = try await view(puffd)
        #expect(open.contains("mail alice") && open.contains("\"user\": \"bob\""), "\(open)")

        #expect(try await run(puffd, VaultFlowTests.puffctl, ["lock", "--all"]).status == 0)
        let afterLock = try await view(puffd)
        let searchAfterLock = try await run(puffd, "/usr/bin/secret-tool", ["search", "--all", "app", "view-e2e"])
        _ = await puffd.terminate()

        puffd = try await daemon()
        let afterRestart = try await view(puffd)
        let searchAfterRestart = try await run(puffd, "/usr/bin/secret-tool", ["search", "--all", "app", "view-e2e"])
        #expect(afterLock == afterRestart)
        #expect(searchAfterLock.output == searchAfterRestart.output, "\(searchAfterLock.output)")
        #expect(!afterLock.contains("mail alice") && !afterLock.contains("bob"), "nothing but the paths: \(afterLock)")
        #expect(afterLock.contains("\(Self.login)/1") && afterLock.contains("\(Self.login)/2"))

        // Unlocked, everything is there again, read from the journal.
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["unlock", "--stdin"], input: "view pass\n").status == 0)
        #expect(try await view(puffd) == open)
        _ = await puffd.terminate()
    }
}

extension LockedViewFlowTests {
    /// secret-tool 0.20.5's `search --unlock` reads the items' properties before it unlocks them and
    /// prints them after: the unlock's `PropertiesChanged` signals carry the labels and attributes
    /// it then shows, after `Lock` and after a restart alike.
    @Test func secretToolSearchUnlockShowsLabelsAndAttributesAfterLockAndAfterARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pinentry = ClientDriver.directory.appendingPathComponent("fake_pinentry.py").path
        let config = folder.appendingPathComponent("puffd.toml")
        let answers = folder.appendingPathComponent("answers")
        try """
        [vault]
        data_dir = "\(folder.appendingPathComponent("vault").path)"
        kdf = "interactive"
        [prompts]
        order = ["pinentry", "none"]
        pinentry = "\(pinentry)"
        """.write(to: config, atomically: true, encoding: .utf8)
        try "view pass\nview pass\n".write(to: answers, atomically: true, encoding: .utf8)
        func start() async throws -> TestDaemon {
            try await TestDaemon(
                arguments: ["--config", config.path, "--vault", "file"],
                environment: [
                    "DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers.path,
                    "FAKE_PINENTRY_LOG": folder.appendingPathComponent("pinentry.log").path,
                ])
        }
        var puffd = try await start()
        #expect(try await run(puffd, VaultFlowTests.puffctl, ["init", "--stdin"], input: "view pass\n").status == 0)
        let stored = try await run(
            puffd, "/usr/bin/secret-tool", ["store", "--label=mail alice", "app", "view-e2e", "user", "alice"],
            input: "secret-alice")
        #expect(stored.status == 0, "\(stored.output)")
        for restart in [false, true] {
            #expect(try await run(puffd, VaultFlowTests.puffctl, ["lock", "--all"]).status == 0)
            if restart {
                _ = await puffd.terminate()
                puffd = try await start()
            }
            let search = try await run(
                puffd, "/usr/bin/secret-tool", ["search", "--all", "--unlock", "app", "view-e2e"])
            // Checked as Bools: the output holds the test secret.
            let shows =
                search.output.contains("label = mail alice\n") && search.output.contains("attribute.user = alice")
            #expect(shows && search.output.contains("secret = secret-alice"), "restart: \(restart)")
        }
        _ = await puffd.terminate()
    }
}
