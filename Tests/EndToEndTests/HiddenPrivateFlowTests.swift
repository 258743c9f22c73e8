// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffDBus
import PuffTesting
import Testing

/// Private and hidden collections as a Secret Service client and `puffctl` see them (issue 13,
/// "Done when"): the built `puffd` with a file vault, `puffctl`, `secret-tool` and raw D-Bus
/// calls on a private bus.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct HiddenPrivateFlowTests {
    static let puffctl = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent()
        .appendingPathComponent("puffctl").path
    static let stash = "/org/freedesktop/secrets/collection/Stash"
    static let diary = "/org/freedesktop/secrets/collection/Diary"
    static let login = "/org/freedesktop/secrets/collection/login"

    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-hidden-\(UUID().uuidString)")
        .path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            Self.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Whether `secret-tool lookup` prints exactly `secret`; a Bool, so a failure prints no secret.
    func looksUp(_ daemon: TestDaemon, _ app: String, _ secret: String) async throws -> Bool {
        try await secretTool(daemon, ["lookup", "app", app]).output == secret
    }

    /// The collections `puffctl collection list --json` shows, by id, with their JSON fields.
    func listed(_ daemon: TestDaemon) async throws -> [String: [String: Any]] {
        let result = try await puffctl(daemon, ["collection", "list", "--json"])
        #expect(result.status == 0, "\(result.output)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: array.map { ($0["id"] as? String ?? "", $0) })
    }

    @Test func hiddenAndPrivateCollectionsShowOnlyWhileTheirPasscodesHaveThemOpen() async throws {
        var puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "login pass\n").status == 0)
        let diary = try await puffctl(
            puffd, ["collection", "create", "Diary", "--private", "--stdin"], input: "diary pass\n")
        #expect(diary.status == 0 && diary.output == "Diary\n", "\(diary.output)")
        // --passcode-fd 0: the passcode comes through a descriptor, here standard input.
        let stash = try await puffctl(
            puffd, ["collection", "create", "Stash", "--hidden", "--passcode-fd", "0"], input: "stash pass\n")
        #expect(stash.status == 0 && stash.output == "Stash\n", "\(stash.output)")
        // The first diary secret is replaced, so the private collection has a dead record to compact.
        for (collection, app, secret) in [
            (Self.diary, "e2e-private", "diary-draft"), (Self.diary, "e2e-private", "diary-secret"),
            (Self.stash, "e2e-hidden", "stash-secret"), ("default", "e2e-login", "login-secret"),
        ] {
            let stored = try await secretTool(
                puffd, ["store", "--label=\(app)", "--collection=\(collection)", "app", app], input: secret)
            #expect(stored.status == 0, "\(stored.output)")
        }
        var bus = try await SecretServiceClient(puffd)
        try await bus.setAlias("stash", to: Self.stash)
        try await expectVisible(puffd, bus, stashOpen: true, diaryOpen: true)

        try await bus.watchItems(of: Self.diary)
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        #expect(await bus.nextItems(of: Self.diary) == [], "clients' caches hear that the items went")
        try await expectVisible(puffd, bus, stashOpen: false, diaryOpen: false)
        let wrong = try await puffctl(puffd, ["unlock", "--hidden", "--stdin"], input: "diary pass\n")
        #expect(wrong.status == 2, "another collection's passcode opens no hidden one: \(wrong.output)")
        try await expectVisible(puffd, bus, stashOpen: false, diaryOpen: false)

        let opened = try await puffctl(puffd, ["unlock", "--hidden", "--stdin"], input: "stash pass\n")
        #expect(opened.status == 0 && opened.output == "Stash\n", "\(opened.output)")
        try await expectVisible(puffd, bus, stashOpen: true, diaryOpen: false)
        #expect(try await looksUp(puffd, "e2e-hidden", "stash-secret"))
        #expect(try await puffctl(puffd, ["lock", "Stash"]).status == 0)
        try await expectVisible(puffd, bus, stashOpen: false, diaryOpen: false)

        bus.close()
        _ = await puffd.terminate()
        puffd = try await daemon()
        bus = try await SecretServiceClient(puffd)
        defer { bus.close() }
        try await expectVisible(puffd, bus, stashOpen: false, diaryOpen: false)
        // Compaction seals the records again in a new chain: it needs the key.
        #expect(try await puffctl(puffd, ["compact", "Diary"]).status != 0, "a locked collection is not compacted")
        try await bus.watchItems(of: Self.diary)
        #expect(try await puffctl(puffd, ["unlock", "Diary", "--stdin"], input: "diary pass\n").status == 0)
        #expect(await bus.nextItems(of: Self.diary) == ["\(Self.diary)/1"])
        let compacted = try await puffctl(puffd, ["compact", "Diary"])
        #expect(compacted.status == 0 && compacted.output != "reclaimed 0 bytes\n", "\(compacted.output)")
        try await expectVisible(puffd, bus, stashOpen: false, diaryOpen: true)
        #expect(try await looksUp(puffd, "e2e-private", "diary-secret"))
        #expect(try await puffctl(puffd, ["unlock", "--hidden", "--stdin"], input: "stash pass\n").status == 0)
        try await expectVisible(puffd, bus, stashOpen: true, diaryOpen: true)
        #expect(try await looksUp(puffd, "e2e-hidden", "stash-secret"))
        _ = await puffd.terminate()

        // The hidden collection's name is in no file; none of what was stored is either.
        for name in try FileManager.default.contentsOfDirectory(atPath: dataDir) {
            let bytes = try #require(FileManager.default.contents(atPath: "\(dataDir)/\(name)"))
            for needle in [
                "Stash", "stash", "e2e-hidden", "stash-secret", "e2e-private", "diary-draft", "diary-secret",
            ] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) in \(name)")
            }
        }
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    @Test func unlockByNameOpensAClosedHiddenCollectionWithOneKeyDerivation() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let puffd = try await daemon()
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "login pass\n").status == 0)
        let stash = try await puffctl(
            puffd, ["collection", "create", "Stash", "--hidden", "--stdin"], input: "stash pass\n")
        #expect(stash.status == 0, "\(stash.output)")
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        #expect(try await listed(puffd)["Stash"] == nil)

        // A name that is no visible collection, and a passcode that opens no hidden one.
        let unknown = try await puffctl(puffd, ["unlock", "Stash", "--stdin"], input: "login pass\n")
        #expect(unknown.status == 4 && unknown.output.contains("no collection 'Stash'"), "\(unknown.output)")
        #expect(try await listed(puffd)["Stash"] == nil)

        let opened = try await puffctl(puffd, ["unlock", "Stash", "--stdin"], input: "stash pass\n")
        #expect(opened.status == 0 && opened.output.isEmpty, "\(opened.output)")
        #expect(try await listed(puffd)["Stash"]?["locked"] as? Bool == false)
        #expect(puffd.log.components(separatedBy: "Wrong passcode").count - 1 == 1, "one wrong try, for the first")
        _ = await puffd.terminate()
    }

    /// Checks what `Collections`, `ReadAlias`, `SearchItems` and `puffctl collection list` show of
    /// the hidden `Stash` and the private `Diary`, and that `login`'s locked item is still found.
    func expectVisible(
        _ puffd: TestDaemon, _ bus: SecretServiceClient, stashOpen: Bool, diaryOpen: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let collections = try await bus.collections()
        #expect(
            collections.contains(Self.stash) == stashOpen, "Collections: \(collections)", sourceLocation: sourceLocation
        )
        #expect(collections.contains(Self.diary), "a private collection is listed", sourceLocation: sourceLocation)
        #expect(
            try await bus.readAlias("stash") == (stashOpen ? Self.stash : "/"), sourceLocation: sourceLocation)
        #expect(try await bus.readAlias("default") == Self.login, sourceLocation: sourceLocation)

        let hidden = try await bus.searchItems(["app": "e2e-hidden"])
        #expect(hidden.unlocked == (stashOpen ? ["\(Self.stash)/1"] : []), sourceLocation: sourceLocation)
        #expect(hidden.locked.isEmpty, sourceLocation: sourceLocation)
        let everything = try await bus.searchItems([:])
        #expect(
            (everything.unlocked + everything.locked).contains { $0.hasPrefix(Self.stash) } == stashOpen,
            sourceLocation: sourceLocation)
        let diary = try await bus.searchItems(["app": "e2e-private"])
        #expect(diary.unlocked == (diaryOpen ? ["\(Self.diary)/1"] : []), sourceLocation: sourceLocation)
        #expect(diary.locked.isEmpty, "a locked private collection keeps no index", sourceLocation: sourceLocation)
        let items = try await bus.items(of: Self.diary)
        #expect(items == (diaryOpen ? ["\(Self.diary)/1"] : []), "Items", sourceLocation: sourceLocation)
        let login = try await bus.searchItems(["app": "e2e-login"])
        #expect(login.unlocked + login.locked == ["\(Self.login)/1"], sourceLocation: sourceLocation)

        let text = try await puffctl(puffd, ["collection", "list"])
        #expect(text.output.contains("Stash") == stashOpen, "\(text.output)", sourceLocation: sourceLocation)
        let listed = try await listed(puffd)
        #expect((listed["Stash"] != nil) == stashOpen, sourceLocation: sourceLocation)
        #expect((listed["Stash"]?["hidden"] as? Bool) == (stashOpen ? true : nil), sourceLocation: sourceLocation)
        #expect(listed["Diary"]?["locked"] as? Bool == !diaryOpen, sourceLocation: sourceLocation)
        #expect(listed["Diary"]?["items"] as? Int == (diaryOpen ? 1 : 0), sourceLocation: sourceLocation)
    }
}
