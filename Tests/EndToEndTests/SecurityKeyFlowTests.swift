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
    @Test func aKeyEnrolledThroughPuffctlOpensByATouchAndAnotherKeyOrARefusedTouchDoesNot() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let other = try await keys.start("other", seed: SoftwareSecurityKey.otherSeed)
        let untouched = try await keys.start("untouched", touch: .refuse)
        // puffd's own key is the configured one; the others are named per call.
        let vault = try await SecurityKeyVault(keys, device: key)

        let added = try await vault.enrol(label: "yubikey")
        #expect(added.status == 0, "\(added.output)")
        let listed = try await vault.puffctl(["slot", "list", "login"])
        #expect(listed.output.contains("fido2") && listed.output.contains("yubikey"), "\(listed.output)")

        try await vault.lockAll()
        let touched = try await vault.puffctl(["unlock", "login", "--security-key"])
        #expect(touched.status == 0, "\(touched.output)")
        #expect(touched.output.contains("Touch your security key"), "\(touched.output)")
        #expect(try await vault.isLocked() == false)

        try await vault.lockAll()
        let stranger = try await vault.puffctl(["unlock", "login", "--fido2-device", other.device])
        #expect(stranger.status != 0)
        #expect(stranger.output.contains("not the one this slot was made with"), "\(stranger.output)")
        let refused = try await vault.puffctl(["unlock", "login", "--fido2-device", untouched.device])
        #expect(refused.status != 0)
        #expect(refused.output.contains("not touched, or the person refused"), "\(refused.output)")
        #expect(try await vault.isLocked() == true)
        // The passcode slot still opens.
        #expect(try await vault.puffctl(["unlock", "--stdin"], input: SecurityKeyVault.passcode + "\n").status == 0)
        _ = await vault.puffd.terminate()
    }

    @Test func aSlotMadeWithTheKeysPINRefusesAWrongOneAndSaysHowManyTriesAreLeft() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("pin", pin: "right-pin-4711")
        let vault = try await SecurityKeyVault(keys)

        // The proof on standard input, then the PIN on the same descriptor's next line.
        let added = try await vault.enrol(pin: "right-pin-4711", device: key)
        #expect(added.status == 0, "\(added.output)")

        try await vault.lockAll()
        let noPIN = try await vault.puffctl(["unlock", "login", "--fido2-device", key.device])
        #expect(noPIN.status != 0)
        #expect(noPIN.output.contains("PIN is needed"), "\(noPIN.output)")
        let wrong = try await vault.puffctl(
            ["unlock", "login", "--fido2-device", key.device, "--pin-fd", "0"], input: "wrong-pin-0000\n")
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("wrong security key PIN; 7 tries left"), "\(wrong.output)")
        #expect(try await vault.isLocked() == true)
        let right = try await vault.puffctl(
            ["unlock", "login", "--fido2-device", key.device, "--pin-fd", "0"], input: "right-pin-4711\n")
        #expect(right.status == 0, "\(right.output)")
        #expect(try await vault.isLocked() == false)
        // Neither PIN reached puffd's log.
        #expect(!vault.puffd.log.contains("right-pin") && !vault.puffd.log.contains("wrong-pin"))
        _ = await vault.puffd.terminate()
    }

    @Test func aFido2PasscodeSlotNeedsBothTheKeyAndItsPasscode() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let other = try await keys.start("other", seed: SoftwareSecurityKey.otherSeed)
        let vault = try await SecurityKeyVault(keys, device: key)

        // The proof, then the slot's own passcode.
        let added = try await vault.enrol(passcode: "key and words")
        #expect(added.status == 0, "\(added.output)")
        #expect(try await vault.puffctl(["slot", "list", "login"]).output.contains("fido2+passcode"))

        try await vault.lockAll()
        // The key alone, the slot's passcode typed alone, the key with another passcode, and the
        // passcode with another key: all refused.
        let keyAlone = try await vault.puffctl(["unlock", "login", "--security-key"])
        #expect(keyAlone.status != 0, "\(keyAlone.output)")
        let typedAlone = try await vault.puffctl(["unlock", "login", "--stdin"], input: "key and words\n")
        #expect(typedAlone.status == 2, "\(typedAlone.output)")
        let wrongWords = try await vault.puffctl(
            ["unlock", "login", "--with-passcode", "--stdin"], input: "other words\n")
        #expect(wrongWords.status == 2, "\(wrongWords.output)")
        let otherKey = try await vault.puffctl(
            ["unlock", "login", "--with-passcode", "--stdin", "--fido2-device", other.device],
            input: "key and words\n")
        #expect(otherKey.status != 0)
        #expect(otherKey.output.contains("not the one this slot was made with"), "\(otherKey.output)")
        #expect(try await vault.isLocked() == true)

        let both = try await vault.puffctl(["unlock", "login", "--with-passcode", "--stdin"], input: "key and words\n")
        #expect(both.status == 0, "\(both.output)")
        #expect(try await vault.isLocked() == false)
        _ = await vault.puffd.terminate()
    }
}
