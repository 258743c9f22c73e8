// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `puffctl passwd` re-keys (issue 24 item 5), through the built `puffd`, `puffctl` and
/// `secret-tool`: a thief who copied the vault before the change and knows the old passcode
/// reads nothing stored after it, and the kernel keyring's copy of the old key is revoked.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct RekeyFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-rekey-\(UUID().uuidString)").path
    var vault: String { folder + "/vault" }

    func daemon(_ dataDir: String, _ extra: [String] = []) async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"] + extra)
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Copies every file of `from` but the lock into `to` (made if missing), over what is there.
    static func copyFiles(from: String, to: String) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: to, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: from) where name != "lock" {
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: "\(from)/\(name)", isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            try? files.removeItem(atPath: "\(to)/\(name)")
            try files.copyItem(atPath: "\(from)/\(name)", toPath: "\(to)/\(name)")
        }
    }

    /// The spaces whose headers are in `folder`.
    static func spaces(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".header") }.map {
            String($0.dropLast(".header".count))
        }
    }

    @Test func theOldFilesAndTheOldPasscodeDoNotRevealWhatWasStoredAfterPasswd() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var puffd = try await daemon(vault)
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "old pass\n").status == 0)
        let before = try await secretTool(
            puffd, ["store", "--label=before", "service", "rekey-e2e", "when", "before"], input: "stored-before")
        #expect(before.status == 0, "\(before.output)")
        _ = await puffd.terminate()
        // The thief's copy, taken before the change.
        try Self.copyFiles(from: vault, to: folder + "/stolen")

        puffd = try await daemon(vault)
        #expect(try await puffctl(puffd, ["passwd", "--stdin"], input: "old pass\nnew pass\n").status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "new pass\n").status == 0)
        let after = try await secretTool(
            puffd, ["store", "--label=after", "service", "rekey-e2e", "when", "after"], input: "stored-after")
        #expect(after.status == 0, "\(after.output)")
        _ = await puffd.terminate()

        // The thief later takes the files as they are now and puts the old header and catalog in
        // front of the newest journal (under the old space's name, which the old header names).
        let attack = folder + "/attack"
        try Self.copyFiles(from: vault, to: attack)
        let oldSpace = try #require(try Self.spaces(in: folder + "/stolen").first)
        let newSpace = try #require(try Self.spaces(in: vault).first)
        let files = FileManager.default
        for name in ["\(oldSpace).header", "catalog"] {
            try? files.removeItem(atPath: "\(attack)/\(name)")
            try files.copyItem(atPath: "\(folder)/stolen/\(name)", toPath: "\(attack)/\(name)")
        }
        if newSpace != oldSpace {
            for suffix in ["journal", "head"] {
                try files.copyItem(atPath: "\(vault)/\(newSpace).\(suffix)", toPath: "\(attack)/\(oldSpace).\(suffix)")
            }
        }
        puffd = try await daemon(attack)
        _ = try await puffctl(puffd, ["unlock", "--stdin"], input: "old pass\n")
        let stolen = try await secretTool(puffd, ["lookup", "service", "rekey-e2e", "when", "after"])
        #expect(!stolen.output.contains("stored-after"), "the old passcode reveals what was stored after passwd")
        _ = await puffd.terminate()

        // The new passcode opens everything; the old one nothing.
        puffd = try await daemon(vault)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "old pass\n").status == 2)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "new pass\n").status == 0)
        #expect(
            try await secretTool(puffd, ["lookup", "service", "rekey-e2e", "when", "before"]).output == "stored-before")
        #expect(
            try await secretTool(puffd, ["lookup", "service", "rekey-e2e", "when", "after"]).output == "stored-after")
        let audit = try await puffctl(puffd, ["audit"])
        #expect(audit.status == 0 && audit.output.contains("before"), "the audit entries before passwd still read")
        _ = await puffd.terminate()
        #expect(try Self.spaces(in: vault).count == 1, "one collection's files, not two")
    }

    @Test func passwdRevokesTheKernelKeyringsCopyOfTheOldKey() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let puffd = try await daemon(vault, ["--kernel-keyring", "600"])
        #expect(try await puffctl(puffd, ["init", "--stdin"], input: "old pass\n").status == 0)
        let old = try #require(try Self.spaces(in: vault).first)
        #expect(KernelKeyringTests.keyIsLive("puff:" + old), "kept while unlocked")
        #expect(try await puffctl(puffd, ["passwd", "--stdin"], input: "old pass\nnew pass\n").status == 0)
        let new = try #require(try Self.spaces(in: vault).first)
        #expect(!KernelKeyringTests.keyIsLive("puff:" + old), "the old key's copy is revoked")
        #expect(KernelKeyringTests.keyIsLive("puff:" + new), "the new key is kept, as for any unlocked collection")
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(!KernelKeyringTests.keyIsLive("puff:" + new))
        _ = await puffd.terminate()
    }
}
