// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// fido2 slots through the built `puffd` and `puffctl` against the software FIDO2 authenticator
/// (issue 26 item 5, docs/unlock-slots.md): a key enrolled with `puffctl slot add` opens the
/// collection by a touch; another key, a refused touch and a wrong PIN leave it locked and say why
/// (the PIN's tries left shown); a fido2+passcode slot needs both the key and its passcode.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyFlowTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-fido2-\(UUID().uuidString)")
    var vault: String { folder.path + "/vault" }
    static let passcode = "collection words"

    func daemon(_ extra: [String] = []) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try await TestDaemon(arguments: ["--data-dir", vault, "--kdf", "interactive"] + extra)
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// A running puffd with an initialised `login` under ``passcode``.
    func initialised(_ extra: [String] = []) async throws -> TestDaemon {
        let puffd = try await daemon(extra)
        let created = try await puffctl(puffd, ["init", "--stdin"], input: Self.passcode + "\n")
        #expect(created.status == 0, "\(created.output)")
        return puffd
    }

    /// Whether `puffctl status` shows `login` locked.
    func loginIsLocked(_ puffd: TestDaemon) async throws -> Bool? {
        let status = try await puffctl(puffd, ["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        return collections.first { $0["id"] as? String == "login" }?["locked"] as? Bool
    }

    @Test func aKeyEnrolledThroughPuffctlOpensByATouchAndAnotherKeyOrARefusedTouchDoesNot() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        let other = try await SoftwareSecurityKey(in: folder, name: "other", seed: SoftwareSecurityKey.otherSeed)
        defer { other.stop() }
        let untouched = try await SoftwareSecurityKey(in: folder, name: "untouched", touch: .refuse)
        defer { untouched.stop() }
        // puffd's own key is the configured one; the others are named per call.
        let puffd = try await initialised(["--fido2-device", key.device])

        let added = try await puffctl(
            puffd, ["slot", "add", "login", "fido2", "--label", "yubikey", "--stdin"], input: Self.passcode + "\n")
        #expect(added.status == 0, "\(added.output)")
        let listed = try await puffctl(puffd, ["slot", "list", "login"])
        #expect(listed.output.contains("fido2") && listed.output.contains("yubikey"), "\(listed.output)")

        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let touched = try await puffctl(puffd, ["unlock", "login", "--security-key"])
        #expect(touched.status == 0, "\(touched.output)")
        #expect(touched.output.contains("Touch your security key"), "\(touched.output)")
        #expect(try await loginIsLocked(puffd) == false)

        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let stranger = try await puffctl(puffd, ["unlock", "login", "--fido2-device", other.device])
        #expect(stranger.status != 0)
        #expect(stranger.output.contains("not the one this slot was made with"), "\(stranger.output)")
        let refused = try await puffctl(puffd, ["unlock", "login", "--fido2-device", untouched.device])
        #expect(refused.status != 0)
        #expect(refused.output.contains("not touched, or the person refused"), "\(refused.output)")
        #expect(try await loginIsLocked(puffd) == true)
        // The passcode slot still opens.
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: Self.passcode + "\n").status == 0)
        _ = await puffd.terminate()
    }

    @Test func aSlotMadeWithTheKeysPINRefusesAWrongOneAndSaysHowManyTriesAreLeft() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "pin", pin: "right-pin-4711")
        defer { key.stop() }
        let puffd = try await initialised()

        // The proof on standard input, then the PIN on the same descriptor's next line.
        let added = try await puffctl(
            puffd, ["slot", "add", "login", "fido2", "--fido2-device", key.device, "--stdin", "--pin-fd", "0"],
            input: Self.passcode + "\nright-pin-4711\n")
        #expect(added.status == 0, "\(added.output)")

        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        let noPIN = try await puffctl(puffd, ["unlock", "login", "--fido2-device", key.device])
        #expect(noPIN.status != 0)
        #expect(noPIN.output.contains("PIN is needed"), "\(noPIN.output)")
        let wrong = try await puffctl(
            puffd, ["unlock", "login", "--fido2-device", key.device, "--pin-fd", "0"], input: "wrong-pin-0000\n")
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("wrong security key PIN; 7 tries left"), "\(wrong.output)")
        #expect(try await loginIsLocked(puffd) == true)
        let right = try await puffctl(
            puffd, ["unlock", "login", "--fido2-device", key.device, "--pin-fd", "0"], input: "right-pin-4711\n")
        #expect(right.status == 0, "\(right.output)")
        #expect(try await loginIsLocked(puffd) == false)
        // Neither PIN reached puffd's log.
        #expect(!puffd.log.contains("right-pin") && !puffd.log.contains("wrong-pin"))
        _ = await puffd.terminate()
    }

    @Test func aFido2PasscodeSlotNeedsBothTheKeyAndItsPasscode() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = try await SoftwareSecurityKey(in: folder, name: "key")
        defer { key.stop() }
        let other = try await SoftwareSecurityKey(in: folder, name: "other", seed: SoftwareSecurityKey.otherSeed)
        defer { other.stop() }
        let puffd = try await initialised(["--fido2-device", key.device])

        // The proof, then the slot's own passcode.
        let added = try await puffctl(
            puffd, ["slot", "add", "login", "fido2", "--with-passcode", "--stdin"],
            input: Self.passcode + "\nkey and words\n")
        #expect(added.status == 0, "\(added.output)")
        #expect(try await puffctl(puffd, ["slot", "list", "login"]).output.contains("fido2+passcode"))

        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        // The key alone, the slot's passcode typed alone, the key with another passcode, and the
        // passcode with another key: all refused.
        let keyAlone = try await puffctl(puffd, ["unlock", "login", "--security-key"])
        #expect(keyAlone.status != 0, "\(keyAlone.output)")
        let typedAlone = try await puffctl(puffd, ["unlock", "login", "--stdin"], input: "key and words\n")
        #expect(typedAlone.status == 2, "\(typedAlone.output)")
        let wrongWords = try await puffctl(
            puffd, ["unlock", "login", "--with-passcode", "--stdin"], input: "other words\n")
        #expect(wrongWords.status == 2, "\(wrongWords.output)")
        let otherKey = try await puffctl(
            puffd, ["unlock", "login", "--with-passcode", "--stdin", "--fido2-device", other.device],
            input: "key and words\n")
        #expect(otherKey.status != 0)
        #expect(otherKey.output.contains("not the one this slot was made with"), "\(otherKey.output)")
        #expect(try await loginIsLocked(puffd) == true)

        let both = try await puffctl(
            puffd, ["unlock", "login", "--with-passcode", "--stdin"], input: "key and words\n")
        #expect(both.status == 0, "\(both.output)")
        #expect(try await loginIsLocked(puffd) == false)
        _ = await puffd.terminate()
    }
}
