// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

/// `--locked-search tpm2` (issue 26 item 6, docs/design/unlock-slots.md §2 "Index storage") through
/// the built puffd and puffctl against a swtpm the test starts: the index key sealed by the TPM is
/// unsealed at start, so `secret-tool search` and python secretstorage find the locked items before
/// any unlock; the vault files hold no index key a thief could test guesses with; under another
/// TPM state nothing is found until the passcode unlocks the collection.
@Suite(.serialized, .enabled(if: TestBus.isAvailable && SoftwareTPM.canRun))
struct SealedLockedSearchFlowTests {
    static let passcode = "sealed search pass\n"
    static let item = "/org/freedesktop/secrets/collection/login/1"
    static let second = "/org/freedesktop/secrets/collection/login/2"

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-sealed-\(UUID().uuidString)")
    var dataDir: String { folder.appendingPathComponent("vault").path }

    /// puffd on the test's vault with `tpm` as its TPM; nobody answers a prompt, and the
    /// collection has no tpm2 slot: it stays locked until `puffctl unlock`.
    func daemon(_ tpm: SoftwareTPM) async throws -> TestDaemon {
        try await TestDaemon(arguments: [
            "--data-dir", dataDir, "--kdf", "interactive", "--prompter", "none", "--tpm2-device", tpm.tcti,
        ])
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

    /// The entry of collection `id` in `puffctl status --json`.
    func collectionStatus(_ puffd: TestDaemon, _ id: String = "login") async throws -> [String: Any] {
        let status = try await puffctl(puffd, ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        return try #require(collections.first { $0["id"] as? String == id }, "\(status.output)")
    }

    /// A vault whose `login` holds two items with `user=alice`, locked.
    func storedAndLocked(_ puffd: TestDaemon) async throws {
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode).status == 0)
        for service in ["imap", "smtp"] {
            let stored = try await run(
                puffd, "/usr/bin/secret-tool",
                ["store", "--label=mail \(service)", "user", "alice", "service", service],
                input: "secret-\(service)")
            #expect(stored.status == 0, "\(stored.output)")
        }
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
    }

    /// The thief's attack on the vault folder alone: every 32 bytes of every header file, at every
    /// offset, taken as a blind-index key and used to tag the guess `user=alice`; returns how many
    /// of those keys give a tag that occurs in a journal (each such key confirms the guess).
    /// Independent of where the format puts the key, so a key left anywhere in a header is found.
    func guessesConfirmedFromTheFiles() throws -> Int {
        var guess: [UInt8] = [0x70]
        for text in ["user", "alice"] {
            withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { guess.append(contentsOf: $0) }
            guess.append(contentsOf: text.utf8)
        }
        var headers: [[UInt8]] = []
        var windows = Set<[UInt8]>()
        for name in try FileManager.default.contentsOfDirectory(atPath: dataDir) {
            guard let data = FileManager.default.contents(atPath: "\(dataDir)/\(name)") else { continue }
            let bytes = Array(data)
            if name.hasSuffix(".header") {
                headers.append(bytes)
            } else if name.hasSuffix(".journal"), bytes.count >= 16 {
                for at in 0...(bytes.count - 16) { windows.insert(Array(bytes[at..<at + 16])) }
            }
        }
        var confirmed = 0
        for header in headers where header.count >= 32 {
            for at in 0...(header.count - 32) {
                let key = SecureBytes(unwipedCopyOf: Array(header[at..<at + 32]))
                if windows.contains(try KeyedHash(key: key).digest(guess).bytes) { confirmed += 1 }
            }
        }
        return confirmed
    }

    /// `login`'s header file as puffd's decoder reads it.
    func loginHeader() throws -> VaultHeader {
        var headers: [VaultHeader] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dataDir) where name.hasSuffix(".header") {
            let file = Array(try Data(contentsOf: URL(fileURLWithPath: "\(dataDir)/\(name)")))
            let payload = try ChecksummedFile.decode(file, magic: ChecksummedFile.headerMagic, name: name)
            headers.append(try VaultHeader(decoding: payload))
        }
        return try #require(headers.first { $0.collectionID == "login" })
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func aTPMSealedIndexKeyFindsLockedItemsAfterARestartAndLeavesNoKeyInTheFiles() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        var puffd = try await daemon(tpm)
        try await storedAndLocked(puffd)
        #expect(
            try guessesConfirmedFromTheFiles() == 1, "with the key in the clear the files confirm it: the attack works")

        let set = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "tpm2", "--stdin"], input: Self.passcode)
        #expect(set.status == 0, "\(set.output)\n\(puffd.log.suffix(1500))")
        #expect(set.output.contains("login: locked search always (TPM-sealed)"), "\(set.output)")
        #expect(try tpm.loadedHandles() == [])
        let status = try await collectionStatus(puffd)
        #expect(status["locked_search"] as? String == "always" && status["index_key"] as? String == "tpm2", "\(status)")
        let listed = try await puffctl(puffd, ["status"]).output
        #expect(listed.contains("search:always(TPM-sealed)"), "\(listed)")
        let audit = try await puffctl(puffd, ["audit", "--collection", "login"]).output
        #expect(audit.contains("locked-search") && audit.contains("always → always (tpm2)"), "\(audit)")

        // The thief with the files: storage 2, no key in the clear, and no guess confirmed.
        let header = try loginHeader()
        #expect(header.indexStorage == .tpm2 && header.indexKey == nil && header.indexSeal != nil)
        #expect(try guessesConfirmedFromTheFiles() == 0, "no 32 bytes of any header tag the guess")
        _ = await puffd.terminate()

        // On this machine: found while locked, with no unlock since the start.
        puffd = try await daemon(tpm)
        #expect(try await collectionStatus(puffd)["locked"] as? Bool == true)
        let found = try await secretToolSearch(puffd)
        #expect(found.contains("[/1]") && found.contains("[/2]") && found.contains("the object is locked"), "\(found)")
        #expect(try await secretStorageSearch(puffd) == [Self.item: true, Self.second: true])
        #expect(try await collectionStatus(puffd)["search_waits_for_unlock"] as? Bool == false)
        #expect(try tpm.loadedHandles() == [])
        _ = await puffd.terminate()
        #expect(!puffd.log.contains(Self.passcode.dropLast()))
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func underAnotherTPMStateNothingIsFoundUntilTheUnlockBringsTheKeyBack() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        var puffd = try await daemon(tpm)
        try await storedAndLocked(puffd)
        let set = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "tpm2", "--stdin"], input: Self.passcode)
        #expect(set.status == 0, "\(set.output)")
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        _ = await puffd.terminate()

        // The same files under another TPM state (a replaced TPM, or a thief's machine).
        let other = try SoftwareTPM()
        puffd = try await daemon(other)
        #expect(try await secretToolSearch(puffd) == "", "nothing before the unlock")
        #expect(try await secretStorageSearch(puffd) == [:])
        #expect(try await collectionStatus(puffd)["search_waits_for_unlock"] as? Bool == true)
        let status = try await puffctl(puffd, ["status"]).output
        #expect(status.contains("the TPM did not unseal its index key"), "\(status)")
        #expect(puffd.log.contains("The TPM did not unseal a collection's index key"), "\(puffd.log.suffix(1500))")
        let doctor = try await puffctl(puffd, ["doctor"]).output
        #expect(doctor.contains("the TPM did not unseal the index key of collection login at start"), "\(doctor)")

        // The unlock recovers the key from its wrap; search then works across Lock.
        let unlock = try await puffctl(puffd, ["unlock", "login", "--stdin"], input: Self.passcode)
        #expect(unlock.status == 0, "\(unlock.output)")
        #expect(try await puffctl(puffd, ["lock", "--all"]).status == 0)
        #expect(try await secretStorageSearch(puffd) == [Self.item: true, Self.second: true])
        #expect(try await collectionStatus(puffd)["search_waits_for_unlock"] as? Bool == false)
        #expect(try other.loadedHandles() == [])
        _ = await puffd.terminate()
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func choosingTPM2NeedsTheTPMAndThePasscodeAndLeavingItMakesAFreshClearKey() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        let puffd = try await daemon(tpm)
        try await storedAndLocked(puffd)
        let set = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "after-unlock", "--stdin"], input: Self.passcode)
        #expect(set.status == 0, "\(set.output)")

        // Towards tpm2 is weaker than after-unlock: said, and a wrong passcode changes nothing.
        let guessed = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "tpm2", "--stdin"], input: "a guess\n")
        #expect(guessed.status != 0)
        #expect(guessed.output.contains("after-unlock → always (TPM-sealed) weakens protection"), "\(guessed.output)")
        #expect(try await collectionStatus(puffd)["locked_search"] as? String == "after-unlock")

        // No TPM answering: a typed refusal naming the TPM, and nothing changes.
        try tpm.stop()
        let refused = try await puffctl(
            puffd, ["collection", "set", "login", "--locked-search", "tpm2", "--stdin"], input: Self.passcode)
        #expect(refused.status != 0)
        #expect(refused.output.contains(tpm.tcti) && refused.output.contains("locked search tpm2"), "\(refused.output)")
        #expect(try await collectionStatus(puffd)["locked_search"] as? String == "after-unlock")
        #expect(try loginHeader().indexStorage == .none)
        let created = try await puffctl(
            puffd, ["collection", "create", "sealed", "--locked-search", "tpm2", "--stdin"], input: Self.passcode)
        #expect(created.status != 0 && created.output.contains(tpm.tcti), "\(created.output)")
    }

    @Test(.timeLimit(.minutes(HangGuard.testMinutes)))
    func aCollectionCreatedWithTPM2AndSetBackToAlwaysGetsAFreshClearKey() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let tpm = try SoftwareTPM()
        let puffd = try await daemon(tpm)
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode).status == 0)
        let created = try await puffctl(
            puffd, ["collection", "create", "Sealed", "--locked-search", "tpm2", "--stdin"], input: Self.passcode)
        #expect(created.status == 0, "\(created.output)\n\(puffd.log.suffix(1500))")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let sealed = try await collectionStatus(puffd, id)
        #expect(sealed["locked_search"] as? String == "always" && sealed["index_key"] as? String == "tpm2", "\(sealed)")

        let back = try await puffctl(
            puffd, ["collection", "set", id, "--locked-search", "always", "--stdin"], input: Self.passcode)
        #expect(back.status == 0, "\(back.output)")
        #expect(back.output.contains("\(id): locked search always"), "\(back.output)")
        let clear = try await collectionStatus(puffd, id)
        #expect(clear["locked_search"] as? String == "always" && clear["index_key"] as? String == "clear", "\(clear)")
    }
}
