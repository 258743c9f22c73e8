// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `--kernel-keyring`: after `kill -9` of an unlocked puffd a new one comes back unlocked from the
/// keys kept in the kernel's user keyring; `puffctl lock` and the timeout end that; without the
/// option a restart comes back locked.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct KernelKeyringTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-keyring-\(UUID().uuidString)")

    func daemon(keyring seconds: Int?) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try await TestDaemon(
            arguments: ["--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive"]
                + (seconds.map { ["--kernel-keyring", String($0)] } ?? []))
    }

    /// A vault whose login holds one item, unlocked, in a puffd that is then killed with SIGKILL.
    func unlockedThenKilled(keyring seconds: Int?) async throws {
        let first = try await daemon(keyring: seconds)
        let env = first.clientEnvironment
        #expect(
            try await ChildProcess.run(
                VaultFlowTests.puffctl, ["init", "--stdin"], environment: env, input: Data("keyring pass\n".utf8)
            ).status == 0)
        #expect(
            try await ChildProcess.run(
                "/usr/bin/secret-tool", ["store", "--label=k", "service", "keyring-e2e"], environment: env,
                input: Data("kept-secret".utf8)
            ).status == 0)
        kill(first.processIdentifier, SIGKILL)
        _ = await first.terminate()
    }

    /// Whether /proc/keys lists a `user` key `name` that has not expired.
    static func keyIsLive(_ name: String) -> Bool { keyIsListed(name, expiredToo: false) }

    /// Whether /proc/keys lists a `user` key `name`, `expiredToo` or not: the kernel keeps an
    /// expired key listed (as `expd`) until its garbage collection, five minutes by default.
    static func keyIsListed(_ name: String, expiredToo: Bool = true) -> Bool {
        let keys = (try? String(contentsOfFile: "/proc/keys", encoding: .utf8)) ?? ""
        return keys.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 8 && fields[8] == name + ":" && (expiredToo || fields[3] != "expd")
        }
    }

    func lookup(on puffd: TestDaemon) async throws -> String {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "keyring-e2e"], environment: puffd.clientEnvironment
        ).output
    }

    @Test func aKilledPuffdComesBackUnlockedUntilALock() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await unlockedThenKilled(keyring: 600)
        let second = try await daemon(keyring: 600)
        #expect(try await lookup(on: second) == "kept-secret", "\(second.log.suffix(1500))")
        #expect(second.log.contains("Unlocked with the key kept in the kernel keyring"))
        #expect(
            try await ChildProcess.run(VaultFlowTests.puffctl, ["lock"], environment: second.clientEnvironment).status
                == 0)
        _ = await second.terminate()
        let third = try await daemon(keyring: 600)
        #expect(try await lookup(on: third) == "", "after puffctl lock the key is gone: locked, no prompter")
    }

    @Test func theKeptKeyExpiresAfterItsTimeout() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await unlockedThenKilled(keyring: 2)
        // The kernel ends the key itself: wait until /proc/keys shows it expired (or gone).
        let vault = folder.appendingPathComponent("vault").path
        let space = try #require(
            try FileManager.default.contentsOfDirectory(atPath: vault).first { $0.hasSuffix(".journal") }?
                .dropLast(".journal".count))
        // Kept at all, live or already expired: the test may be slower than the 2 s of the key.
        #expect(Self.keyIsListed("puff:\(space)"), "the key was kept at all")
        #expect(await poll(limit: HangGuard.step) { !Self.keyIsLive("puff:\(space)") })
        let second = try await daemon(keyring: 2)
        #expect(try await lookup(on: second) == "")
        #expect(!second.log.contains("Unlocked with the key kept in the kernel keyring"))
    }

    @Test func withoutTheOptionARestartComesBackLocked() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try await unlockedThenKilled(keyring: nil)
        let second = try await daemon(keyring: nil)
        #expect(try await lookup(on: second) == "")
    }
}
