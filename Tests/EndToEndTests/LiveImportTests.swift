// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl import --bus` through the built puffd and puffctl: a real gnome-keyring-daemon on a
/// second private bus is migrated into puffd on the test bus and read back with
/// python3-secretstorage; a bus with no provider, puffd's own bus and hostile fake providers
/// (Clients/hostile_provider.py) fail with a message and change nothing.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LiveImportTests {
    let flows = ImportFlowTests()

    /// A python3 driver serving a provider on its own bus, until released; it prints `ready`.
    final class Provider: @unchecked Sendable {
        // @unchecked: set once in init and only read afterwards.
        let bus: TestBus
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        /// What arrived after `ready` in the same read.
        private var leftover = Data()

        init(_ script: String, _ arguments: [String], input text: String = "") throws {
            bus = try TestBus()
            process.executableURL = URL(fileURLWithPath: ClientDriver.python)
            process.arguments = [ClientDriver.directory.appendingPathComponent(script).path] + arguments
            process.environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data(text.utf8))
            // Everything it prints up to `ready`; a line with FAIL, or its end, is a failed premise.
            // Lines are split here: several may arrive in one read.
            var pending = Data()
            var seen: [String] = []
            while true {
                let chunk = output.fileHandleForReading.availableData
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    seen.append(line)
                    if line == "ready" {
                        leftover = pending
                        return
                    }
                    if line.hasPrefix("FAIL") || line.hasPrefix("Traceback") {
                        throw TestDaemonError.neverOwnedName("\(script) did not start: \(seen.suffix(8))")
                    }
                }
                if chunk.isEmpty {
                    throw TestDaemonError.neverOwnedName("\(script) ended before ready: \(seen.suffix(8))")
                }
            }
        }

        /// Stops it and returns what it printed after `ready`.
        func finish() -> String {
            try? input.fileHandleForWriting.close()
            let rest = leftover + output.fileHandleForReading.readDataToEndOfFile()
            return String(decoding: rest, as: UTF8.self)
        }

        deinit {
            try? input.fileHandleForWriting.close()
            kill(process.processIdentifier, SIGTERM)
        }
    }

    func importing(_ puffd: TestDaemon, bus: String, _ extra: [String] = []) async throws -> ChildProcess.Result {
        try await flows.commands.puffctl(puffd, ["import", "--bus", bus, "--into", "login"] + extra)
    }

    func home() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    func jsonLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test(.enabled(if: GnomeKeyringDaemon.installed))
    func aRunningGnomeKeyringsUnlockedCollectionsArriveExactlyAndASecondRunChangesNothing() async throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(at: home) }
        let keyring = try Provider("gnome_keyring_live.py", [home.path], input: "login password ✓\n")
        let expected = try Data(contentsOf: home.appendingPathComponent("expected.json"))
        let served = try #require(try JSONSerialization.jsonObject(with: expected) as? [[String: Any]])
        // The premise: the fixture set in login (gnome_keyring.py's, 9 items or more), one item in
        // session, nothing of the locked vault2.
        let count = served.count
        #expect(count >= 10, "\(count) items served")
        #expect(served.filter { $0["collection"] as? String == "session" }.count == 1)
        #expect(!served.contains { $0["collection"] as? String == "vault2" })
        let puffd = try await flows.daemon()

        let plan = try await importing(puffd, bus: keyring.bus.address, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains("\(count) added, 0 replaced, 0 unchanged, 0 skipped"), "\(plan.output)")
        #expect(plan.output.contains("nothing was changed (--dry-run)"), "\(plan.output)")
        try await expectHolds(puffd, Data("[]".utf8))

        let first = try await importing(puffd, bus: keyring.bus.address)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("\(count) added, 0 replaced, 0 unchanged, 0 skipped"), "\(first.output)")
        #expect(first.output.contains("skipped   collection 'vault2': locked on the other provider"), "\(first.output)")
        #expect(first.output.contains("added     'every byte' from 'Login'"), "\(first.output)")
        #expect(!first.output.contains("in plain"), "gnome-keyring speaks DH: \(first.output)")
        try await expectHolds(puffd, expected)

        let second = try await importing(puffd, bus: keyring.bus.address, ["--json"])
        #expect(second.status == 0, "\(second.output)")
        let lines = jsonLines(second.output)
        #expect(lines.filter { $0["outcome"] as? String == "unchanged" }.count == count, "\(second.output)")
        #expect(lines.last?["unchanged"] as? Int == count && lines.last?["added"] as? Int == 0, "\(second.output)")
        #expect(
            lines.contains { $0["source_collection"] as? String == "vault2" && $0["outcome"] as? String == "skipped" })
        #expect(lines.contains { $0["from"] as? String == "session" }, "\(second.output)")
        try await expectHolds(puffd, expected)
        // The live read's progress: every item described, counted from 0 to all of them.
        let reads = readProgress(lines)
        #expect(reads.allSatisfy { $0.total == count }, "\(second.output)")
        #expect(reads.first?.done == 0 && reads.last?.done == count, "\(second.output)")
        #expect(reads.map(\.done) == reads.map(\.done).sorted(), "\(second.output)")
        let after = keyring.finish()
        #expect(after.contains("ok vault2 still locked") && !after.contains("FAIL"), "no prompt unlocked it: \(after)")
    }

    /// The `import-read` progress lines among `lines` (items only), in order.
    func readProgress(_ lines: [[String: Any]]) -> [(done: Int, total: Int)] {
        lines.compactMap { $0["progress"] as? [String: Any] }
            .filter { $0["operation"] as? String == "import-read" && $0["unit"] as? String == "items" }
            .compactMap { line in (line["done"] as? Int).flatMap { done in (line["total"] as? Int).map { (done, $0) } }
            }
    }

    /// import_check.py: login holds exactly the items of `expected` (expected.json's list).
    func expectHolds(_ puffd: TestDaemon, _ expected: Data, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let script = ClientDriver.directory.appendingPathComponent("import_check.py").path
        let check = try await ChildProcess.run(
            ClientDriver.python, [script, "login"], environment: puffd.clientEnvironment, input: expected)
        #expect(check.status == 0, "\(check.output)", sourceLocation: sourceLocation)
    }

    @Test func noBusNoProviderOrPuffdItselfFailsSayingSoAndChangesNothing() async throws {
        let puffd = try await flows.daemon()
        let nowhere = try await importing(puffd, bus: "unix:path=/nonexistent/puff-no-bus")
        #expect(nowhere.status == 1, "\(nowhere.output)")
        #expect(
            nowhere.output.contains("cannot reach the bus at unix:path=/nonexistent/puff-no-bus"), "\(nowhere.output)")
        #expect(nowhere.output.contains("nothing was imported"), "\(nowhere.output)")

        let empty = try TestBus()
        let nobody = try await importing(puffd, bus: empty.address)
        #expect(nobody.status == 1, "\(nobody.output)")
        #expect(nobody.output.contains("nothing owns org.freedesktop.secrets on the bus at"), "\(nobody.output)")

        let itself = try await importing(puffd, bus: puffd.bus.address)
        #expect(itself.status == 1, "\(itself.output)")
        #expect(itself.output.contains("is puffd itself, not another provider"), "\(itself.output)")
        try await expectHolds(puffd, Data("[]".utf8))
    }

    @Test func aProviderThatRefusesDHIsReadInPlainAndPuffctlSaysSo() async throws {
        let provider = try Provider("hostile_provider.py", ["plain"])
        let puffd = try await flows.daemon()
        let result = try await importing(puffd, bus: provider.bus.address)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("its secrets crossed that bus in plain"), "\(result.output)")
        let expected =
            #"[{"label": "fake item", "attributes": {"kind": "fake"}, "secret_hex": ""#
            + Array("plain secret".utf8).map { String(format: "%02x", $0) }.joined()
            + #"", "created": 1500000000, "modified": 1500000001}]"#
        try await expectHolds(puffd, Data(expected.utf8))
    }

    @Test(arguments: [
        ("huge-label", "the reply to GetAll is too large"),
        ("malformed", "a malformed reply: the Attributes of /org/freedesktop/secrets/collection/fake/1 are not a{ss}"),
        ("bad-ciphertext", "did not decrypt with the session key"),
        ("oversized-secret", "is larger than 16 MiB"),
    ])
    func aHostileProviderMakesTheImportFailCleanlyAndChangeNothing(mode: String, message: String) async throws {
        let provider = try Provider("hostile_provider.py", [mode])
        let puffd = try await flows.daemon()
        let result = try await importing(puffd, bus: provider.bus.address)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(message), "\(result.output)")
        #expect(result.output.contains("nothing was imported"), "\(result.output)")
        try await expectHolds(puffd, Data("[]".utf8))
    }

    @Test func anItemWhoseSecretTheProviderWithholdsIsListedAsSkipped() async throws {
        let provider = try Provider("hostile_provider.py", ["extra-secret"])
        let puffd = try await flows.daemon()
        let result = try await importing(puffd, bus: provider.bus.address)
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains("skipped   'fake item' from 'fake': the other provider did not release its secret"),
            "\(result.output)")
        #expect(result.output.contains("0 added, 0 replaced, 0 unchanged, 1 skipped"), "\(result.output)")
        try await expectHolds(puffd, Data("[]".utf8))
    }

    @Test func aLockedCollectionIsUnlockedThroughTheProvidersPromptOnlyWithUnlockSource() async throws {
        let provider = try Provider("hostile_provider.py", ["locked"])
        let puffd = try await flows.daemon()
        let without = try await importing(puffd, bus: provider.bus.address)
        #expect(without.status == 0, "\(without.output)")
        #expect(
            without.output.contains("skipped   collection 'fake': locked on the other provider"), "\(without.output)")
        #expect(without.output.contains("0 added"), "\(without.output)")
        try await expectHolds(puffd, Data("[]".utf8))

        let with = try await importing(puffd, bus: provider.bus.address, ["--unlock-source"])
        #expect(with.status == 0, "\(with.output)")
        #expect(with.output.contains("1 added"), "\(with.output)")
        let asked = provider.finish()
        #expect(asked.components(separatedBy: "unlock asked").count - 1 == 1, "only --unlock-source asks: \(asked)")
    }

    @Test func aDryRunWithUnlockSourceAsksTheProviderNothingAndListsTheLockedCollection() async throws {
        let provider = try Provider("hostile_provider.py", ["locked"])
        let puffd = try await flows.daemon()
        let plan = try await importing(puffd, bus: provider.bus.address, ["--unlock-source", "--dry-run"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(
            plan.output.contains(
                "skipped   collection 'fake': locked on the other provider; a dry run does not unlock it "
                    + "(without --dry-run, --unlock-source asks the provider, which shows its prompt)"),
            "\(plan.output)")
        #expect(plan.output.contains("nothing was changed (--dry-run)"), "\(plan.output)")
        // The provider is as it was: still locked for the next import.
        let after = try await importing(puffd, bus: provider.bus.address)
        #expect(after.output.contains("skipped   collection 'fake': locked on the other provider"), "\(after.output)")
        try await expectHolds(puffd, Data("[]".utf8))
        let asked = provider.finish()
        #expect(!asked.contains("unlock asked"), "a dry run called Unlock: \(asked)")
    }

    @Test func theLiveReadReportsItsItemsAsJSONProgressFromNoneToAll() async throws {
        let provider = try Provider("hostile_provider.py", ["plain"])
        let puffd = try await flows.daemon()
        let result = try await importing(puffd, bus: provider.bus.address, ["--json", "--dry-run"])
        #expect(result.status == 0, "\(result.output)")
        let reads = readProgress(jsonLines(result.output))
        #expect(reads.map(\.done) == [0, 1] && reads.allSatisfy { $0.total == 1 }, "\(result.output)")
    }

    @Test func aDismissedUnlockPromptLeavesTheCollectionSkippedSayingSo() async throws {
        let provider = try Provider("hostile_provider.py", ["locked-dismissed"])
        let puffd = try await flows.daemon()
        let result = try await importing(puffd, bus: provider.bus.address, ["--unlock-source"])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains(
                "skipped   collection 'fake': still locked on the other provider: its unlock prompt was dismissed"),
            "\(result.output)")
        try await expectHolds(puffd, Data("[]".utf8))
    }
}
