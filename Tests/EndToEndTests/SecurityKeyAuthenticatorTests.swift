// SPDX-License-Identifier: Apache-2.0
import CFido2
import Foundation
import PuffTesting
import Testing

/// The software FIDO2 authenticator the fido2 slots will be tested with (Clients/
/// fido2_authenticator.py, docs/design/unlock-slots.md §3 fido2), driven through the real
/// libfido2 by Clients/fido2_check.c over its I/O hooks: enrolment and hmac-secret assertions, and
/// each refusal puff must tell apart (another key, a wrong PIN, a refused touch). The PIN travels
/// on standard input to both sides, never on a command line; hmac outputs are compared, not shown.
/// The last test does the same from Swift through the CFido2 module puff's own code will use.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyAuthenticatorTests {
    static let clients = TestBus.repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Clients")
    static let salt = String(repeating: "ab", count: 32)
    /// How long libfido2 waits for one answer before giving up: generous, for a loaded machine.
    static let deviceTimeoutMilliseconds: Int32 = 60_000

    /// fido2_check built against Debian's libfido2-dev (APT_PACKAGES), into a folder of its own.
    static func checker() async throws -> String {
        let folder = TestBus.repositoryRoot.appendingPathComponent(".build/e2e-tools/fido2")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("fido2_check-\(UUID().uuidString)").path
        let build = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c",
                "gcc -std=gnu11 -Wall -Wextra -Werror -O2 -o \"$1\" \"$2\" $(pkg-config --cflags --libs libfido2)",
                "sh", binary, clients.appendingPathComponent("fido2_check.c").path,
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(build.status == 0, "building fido2_check (libfido2-dev, make deps): \(build.output.suffix(400))")
        return binary
    }

    func check(_ checker: String, _ arguments: [String], pin: String? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            checker, arguments + (pin == nil ? [] : ["--pin"]), environment: ["PATH": "/usr/bin:/bin"],
            input: Data(((pin ?? "") + "\n").utf8))
    }

    @Test func anEnrolledCredentialGivesTheSameHmacSecretTwiceAndAnotherSeedDoesNotKnowIt() async throws {
        let checker = try await Self.checker()
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let other = try await keys.start("other", seed: SoftwareSecurityKey.otherSeed)
        let credential = keys.path("credential")

        let enrol = try await check(checker, [key.socket, "enrol", credential])
        #expect(enrol.status == 0, "enrol: \(enrol.output)")
        let first = try await check(checker, [key.socket, "unlock", credential, Self.salt])
        let second = try await check(checker, [key.socket, "unlock", credential, Self.salt])
        #expect(first.status == 0 && second.status == 0)
        let output = first.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(output.count == 64, "32 bytes of hmac-secret output in hex")
        #expect(first.output == second.output, "the same credential and salt give the same secret")
        let otherSalt = try await check(
            checker, [key.socket, "unlock", credential, String(repeating: "cd", count: 32)])
        #expect(otherSalt.status == 0 && otherSalt.output != first.output, "another salt gives another secret")

        let stranger = try await check(checker, [other.socket, "unlock", credential, Self.salt])
        #expect(stranger.status == 2)
        #expect(stranger.output.contains("error FIDO_ERR_NO_CREDENTIALS"), "\(stranger.output)")
    }

    @Test func aWrongPinIsRefusedAndCostsARetryWhileTheRightOneUnlocks() async throws {
        let checker = try await Self.checker()
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("pin", pin: "4711")
        let credential = keys.path("credential")

        let enrol = try await check(checker, [key.socket, "enrol", credential], pin: "4711")
        #expect(enrol.status == 0, "enrol: \(enrol.output)")
        let wrong = try await check(checker, [key.socket, "unlock", credential, Self.salt], pin: "0000")
        #expect(wrong.status == 2)
        #expect(wrong.output.contains("error FIDO_ERR_PIN_INVALID"), "\(wrong.output)")
        let retries = try await check(checker, [key.socket, "retries"])
        #expect(retries.output.trimmingCharacters(in: .whitespacesAndNewlines) == "7")
        let right = try await check(checker, [key.socket, "unlock", credential, Self.salt], pin: "4711")
        #expect(right.status == 0, "unlock with the right PIN: \(right.output)")
        #expect(right.output.trimmingCharacters(in: .whitespacesAndNewlines).count == 64)
    }

    @Test func aRefusedTouchRefusesBothEnrolmentAndUnlock() async throws {
        let checker = try await Self.checker()
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        // The same seed, but nobody touches it.
        let untouched = try await keys.start("untouched", touch: .refuse)
        let credential = keys.path("credential")

        let refusedEnrol = try await check(checker, [untouched.socket, "enrol", credential])
        #expect(refusedEnrol.status == 2)
        #expect(refusedEnrol.output.contains("error FIDO_ERR_OPERATION_DENIED"), "\(refusedEnrol.output)")
        let enrol = try await check(checker, [key.socket, "enrol", credential])
        #expect(enrol.status == 0, "enrol: \(enrol.output)")
        let refused = try await check(checker, [untouched.socket, "unlock", credential, Self.salt])
        #expect(refused.status == 2)
        #expect(refused.output.contains("error FIDO_ERR_OPERATION_DENIED"), "\(refused.output)")
    }

    /// An hmac-secret assertion from Swift through CFido2's `unix:PATH` I/O hooks: libfido2's
    /// status and, when it is FIDO_OK, the 32-byte output.
    static func swiftAssertion(socket: String, credential: [UInt8], salt: [UInt8]) -> (status: Int32, secret: [UInt8]) {
        fido_init(0)
        var device = fido_dev_new()
        defer { fido_dev_free(&device) }
        var status = puff_fido_use_unix_socket(device)
        guard status == FIDO_OK else { return (status, []) }
        status = fido_dev_open(device, socket)
        guard status == FIDO_OK else { return (status, []) }
        defer { fido_dev_close(device) }
        // libfido2 waits for a touch without end by default; a broken hook must fail, not hang.
        fido_dev_set_timeout(device, Self.deviceTimeoutMilliseconds)
        var assertion = fido_assert_new()
        defer { fido_assert_free(&assertion) }
        let clientData = [UInt8](repeating: 0, count: 32)
        fido_assert_set_clientdata_hash(assertion, clientData, clientData.count)
        fido_assert_set_rp(assertion, "io.puff.vault")
        fido_assert_allow_cred(assertion, credential, credential.count)
        fido_assert_set_extensions(assertion, FIDO_EXT_HMAC_SECRET)
        fido_assert_set_hmac_salt(assertion, salt, salt.count)
        fido_assert_set_up(assertion, FIDO_OPT_TRUE)
        status = fido_dev_get_assert(device, assertion, nil)
        guard status == FIDO_OK, let pointer = fido_assert_hmac_secret_ptr(assertion, 0) else { return (status, []) }
        return (status, Array(UnsafeBufferPointer(start: pointer, count: fido_assert_hmac_secret_len(assertion, 0))))
    }

    @Test func swiftThroughCFido2GetsTheSameSecretAsTheCDriverAndTheSameRefusal() async throws {
        let checker = try await Self.checker()
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let other = try await keys.start("other", seed: SoftwareSecurityKey.otherSeed)
        let credentialFile = keys.folder.appendingPathComponent("credential")

        let enrol = try await check(checker, [key.socket, "enrol", credentialFile.path])
        #expect(enrol.status == 0, "enrol: \(enrol.output)")
        let fromC = try await check(checker, [key.socket, "unlock", credentialFile.path, Self.salt])
        let credential = [UInt8](try Data(contentsOf: credentialFile))
        let salt = [UInt8](repeating: 0xAB, count: 32)
        let fromSwift = Self.swiftAssertion(socket: key.socket, credential: credential, salt: salt)
        #expect(fromSwift.status == FIDO_OK)
        let hex = fromSwift.secret.map { String(format: "%02x", $0) }.joined()
        #expect(fromSwift.secret.count == 32)
        #expect(hex + "\n" == fromC.output, "Swift and C get the same hmac-secret output")
        let stranger = Self.swiftAssertion(socket: other.socket, credential: credential, salt: salt)
        #expect(stranger.status == FIDO_ERR_NO_CREDENTIALS)
        #expect(stranger.secret.isEmpty)
    }
}
