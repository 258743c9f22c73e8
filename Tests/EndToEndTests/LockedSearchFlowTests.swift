// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

/// A collection's `locked_search` (issue 24 item 6) through the built puffd and puffctl, searched
/// by `secret-tool search` and python secretstorage, and attacked from the vault's files alone.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct LockedSearchFlowTests {
    static let item = "/org/freedesktop/secrets/collection/login/1"
    static let second = "/org/freedesktop/secrets/collection/login/2"
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-search-\(UUID().uuidString)").path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func run(_ puffd: TestDaemon, _ tool: String, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(tool, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
    }

    func puffctl(_ puffd: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await run(puffd, VaultFlowTests.puffctl, arguments, input: input)
    }

    /// What `secret-tool search --all user alice` prints (paths of locked hits too).
    func secretToolSearch(_ puffd: TestDaemon) async throws -> String {
        try await run(puffd, "/usr/bin/secret-tool", ["search", "--all", "user", "alice"]).output
    }

    /// What python secretstorage's `search_items(user=alice)` finds: path → locked.
    func secretStorageSearch(_ puffd: TestDaemon) async throws -> [String: Bool] {
        let script = ClientDriver.directory.appendingPathComponent("locked_search.py").path
        let result = try await run(puffd, "/usr/bin/python3", [script, "user", "alice"])
        #expect(result.status == 0, "\(result.output)")
        let line = result.output.split(separator: "\n").last.map(String.init) ?? ""
        return (try? JSONDecoder().decode([String: Bool].self, from: Data(line.utf8))) ?? ["unreadable": true]
    }

    /// A vault with `login` holding `user=alice` (and a second item sharing the value), locked.
    func storedAndLocked(_ puffd: TestDaemon) async throws {
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "search pass\n").status == 0)
        for service in ["imap", "smtp"] {
            let stored = try await run(
                puffd, "/usr/bin/secret-tool",
                ["store", "--label=mail \(service)", "user", "alice", "service", service],
                input: "secret-\(service)")
            #expect(stored.status == 0, "\(stored.output)")
        }
    }

    /// The thief's attack on the vault folder alone, read by the layout docs/vault-format.md
    /// gives (not by puffd's decoder): every index key found in the clear in a header, used to
    /// tag the guess `user=alice`. Returns those tags and how often tags of `known` (tags a thief
    /// saw in an earlier copy) or of the guess occur in the vault's files: an occurrence confirms
    /// the guess, and two link equal values.
    func thiefAttack(known: [[UInt8]] = []) throws -> (tags: [[UInt8]], occurrences: Int) {
        let names = try FileManager.default.contentsOfDirectory(atPath: dataDir)
        var files: [[UInt8]] = []
        var tags: [[UInt8]] = []
        var guess: [UInt8] = [0x70]
        for text in ["user", "alice"] {
            withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { guess.append(contentsOf: $0) }
            guess.append(contentsOf: text.utf8)
        }
        for name in names where name != "lock" {
            guard let data = FileManager.default.contents(atPath: "\(dataDir)/\(name)") else { continue }
            let bytes = Array(data)
            files.append(bytes)
            // Magic 8, frame length 4, checksum 16; then "puff.header", version, flags, and for
            // versions 1 and 2: KDF 16, salt blob 20, policy 2, space 16, (version 2) the mode
            // byte, then the key blob; for version 3 (slots): policy 2, space 16, the mode and
            // index storage bytes, then the key blob.
            guard name.hasSuffix(".header"), bytes.count > 28 + 35 + 4 else { continue }
            let payload = Array(bytes[28...])
            let at = payload[11] >= 3 ? 35 : 69 + (payload[11] >= 2 ? 1 : 0)
            let length = Int(payload[at]) | Int(payload[at + 1]) << 8
            guard length == 32, payload.count >= at + 4 + 32 else { continue }
            let key = Array(payload[(at + 4)..<(at + 36)])
            tags.append(try KeyedHash(key: SecureBytes(unwipedCopyOf: key)).digest(guess).bytes)
        }
        var occurrences = 0
        for tag in tags + known {
            for file in files where file.count >= 16 {
                occurrences += (0...(file.count - 16)).filter { file[$0..<$0 + 16].elementsEqual(tag) }.count
            }
        }
        return (tags, occurrences)
    }

    @Test func afterUnlockFindsNothingAfterARestartUntilUnlockedAndKeepsFindingAfterLock() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        var puffd = try await daemon()
        try await storedAndLocked(puffd)
        let before = try thiefAttack()
        #expect(before.occurrences == 2, "with always the files confirm the guess: the attack works")

        let set = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "after-unlock", "--stdin"], input: "search pass\n")
        #expect(set.status == 0, "\(set.output)")
        let after = try thiefAttack(known: before.tags)
        #expect(after.tags.isEmpty, "no index key in the clear in any vault file")
        #expect(after.occurrences == 0, "and none of the tags an earlier copy showed")
        let listed = try await puffctl(puffd, ["collection", "list"]).output
        #expect(listed.contains("search:after-unlock"), "\(listed)")
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        #expect(try await secretStorageSearch(puffd) == [Self.item: true, Self.second: true])
        _ = await puffd.terminate()

        puffd = try await daemon()
        #expect(try await secretToolSearch(puffd) == "", "nothing before the first unlock")
        #expect(try await secretStorageSearch(puffd) == [:])
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "search pass\n").status == 0)
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        let afterLock = try await secretToolSearch(puffd)
        // secret-tool prints a locked hit as the end of its path and "the object is locked".
        #expect(afterLock.contains("[/1]") && afterLock.contains("[/2]"), "\(afterLock)")
        #expect(afterLock.contains("the object is locked"), "\(afterLock)")
        #expect(try await secretStorageSearch(puffd) == [Self.item: true, Self.second: true])
        _ = await puffd.terminate()
    }

    @Test func neverFindsTheItemsOnlyWhileUnlockedAndGoingBackToAlwaysNeedsThePasscode() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        var puffd = try await daemon()
        try await storedAndLocked(puffd)
        let tagged = try thiefAttack().tags
        let set = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "never", "--stdin"], input: "search pass\n")
        #expect(set.status == 0, "\(set.output)")
        #expect(try await secretStorageSearch(puffd) == [Self.item: false, Self.second: false])
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        #expect(try await secretStorageSearch(puffd) == [:])
        #expect(try await secretToolSearch(puffd) == "")
        let left = try thiefAttack(known: tagged)
        #expect(left.tags.isEmpty && left.occurrences == 0)

        // Weakening with a wrong passcode changes nothing.
        let refused = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "always", "--stdin"], input: "a guess\n")
        #expect(refused.status != 0)
        #expect(refused.output.contains("weakens protection"), "\(refused.output)")
        _ = await puffd.terminate()
        puffd = try await daemon()
        #expect(try await secretStorageSearch(puffd) == [:])
        #expect(try await puffctl(puffd, ["collection", "list"]).output.contains("search:never"))

        let weakened = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "always", "--stdin"], input: "search pass\n")
        #expect(weakened.status == 0, "\(weakened.output)")
        let audit = try await puffctl(puffd, ["audit", "--collection", "login"]).output
        #expect(audit.contains("locked-search") && audit.contains("never → always"), "\(audit)")
        _ = await puffd.terminate()
        puffd = try await daemon()
        #expect(try await secretStorageSearch(puffd) == [Self.item: true, Self.second: true])
        _ = await puffd.terminate()
    }
}
