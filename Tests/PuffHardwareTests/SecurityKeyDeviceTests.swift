// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffHardware
import PuffService
import PuffTesting
import Testing

/// SecurityKeyDevice through the real libfido2 against the software authenticator
/// (PuffTesting.SoftwareSecurityKey) on a `unix:PATH` socket, one per test
/// (docs/design/unlock-slots.md §3 fido2, §5 item 5).
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct SecurityKeyDeviceTests {
    static let relyingParty = "io.puff.vault"
    static let salt = [UInt8](repeating: 0xAB, count: 32)
    static let pin = "4711"

    func request(_ key: SoftwareSecurityKey, pin: String? = nil, verification: Bool = false) -> SecurityKeyRequest {
        SecurityKeyRequest(
            relyingParty: Self.relyingParty, verification: verification,
            pin: pin.map { SecureBytes(unwipedCopyOf: Array($0.utf8)) }, device: key.device)
    }

    @Test func anEnrolledCredentialGivesTheSame32BytesTwiceAndAnotherSaltGivesOthers() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let device = SecurityKeyDevice()

        let credential = try await device.enrol(request(key))
        #expect(!credential.isEmpty)
        let first = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key))
        let second = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key))
        #expect(first.count == 32)
        #expect(first.constantTimeEquals(second))
        let otherSalt = [UInt8](repeating: 0xCD, count: 32)
        let third = try await device.hmacSecret(credentialID: credential, salt: otherSalt, request(key))
        #expect(!third.constantTimeEquals(first))
    }

    @Test func anAuthenticatorWithAnotherSeedHoldsNoCredentialAndRefusesTheSecret() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let other = try await keys.start("other", seed: SoftwareSecurityKey.otherSeed)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key))

        #expect(try await device.holds(credentialID: credential, request(key)))
        #expect(try await device.holds(credentialID: credential, request(other)) == false)
        await #expect(throws: HardwareError.noCredential) {
            _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(other))
        }
    }

    @Test func holdingIsAskedWithoutATouch() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        // The same seed, but nobody touches it: a probe that asked for a touch would wait or be refused.
        let untouched = try await keys.start("untouched", touch: .refuse)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key))

        #expect(try await device.holds(credentialID: credential, request(untouched)))
        #expect(!untouched.logged().contains("touch?"))
    }

    @Test func noKeyAtTheNamedDeviceHoldsNothingAndIsUnavailableForTheSecret() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let missing = "unix:" + keys.path("nobody.sock")
        let device = SecurityKeyDevice(device: missing)
        let request = SecurityKeyRequest(relyingParty: Self.relyingParty)
        let credential = [UInt8](repeating: 7, count: 32)

        #expect(try await device.holds(credentialID: credential, request) == false)
        do {
            _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request)
            Issue.record("an absent key gave a secret")
        } catch {
            guard case .unavailable(let text) = error else {
                Issue.record("expected .unavailable, got \(error)")
                return
            }
            #expect(text.contains(missing), "the error names the device: \(text)")
        }
    }

    @Test func aRefusedTouchRefusesEnrolmentAndTheSecret() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let untouched = try await keys.start("untouched", touch: .refuse)
        let device = SecurityKeyDevice()

        await #expect(throws: HardwareError.denied) { _ = try await device.enrol(request(untouched)) }
        let credential = try await device.enrol(request(key))
        await #expect(throws: HardwareError.denied) {
            _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(untouched))
        }
    }

    @Test func aWrongPinIsRefusedWithTheRetriesLeftAndTheRightOneUnlocks() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("pin", pin: Self.pin)
        let device = SecurityKeyDevice()

        await #expect(throws: HardwareError.pinRequired) { _ = try await device.enrol(request(key)) }
        await #expect(throws: HardwareError.pinInvalid(retries: 7)) {
            _ = try await device.enrol(request(key, pin: "0000"))
        }
        let credential = try await device.enrol(request(key, pin: Self.pin, verification: true))
        await #expect(throws: HardwareError.pinInvalid(retries: 7)) {
            _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key, pin: "1234"))
        }
        let secret = try await device.hmacSecret(
            credentialID: credential, salt: Self.salt, request(key, pin: Self.pin, verification: true))
        #expect(secret.count == 32)
    }

    @Test func eightWrongPinsBlockThePin() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("pin", pin: Self.pin)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key, pin: Self.pin))

        for left in (0..<8).reversed() {
            await #expect(throws: HardwareError.pinInvalid(retries: left)) {
                _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key, pin: "0000"))
            }
        }
        await #expect(throws: HardwareError.pinBlocked) {
            _ = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key, pin: Self.pin))
        }
    }

    @Test func theSecretWithTheKeysVerificationDiffersFromTheOneWithoutIt() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("pin", pin: Self.pin)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key, pin: Self.pin, verification: true))

        let verified = try await device.hmacSecret(
            credentialID: credential, salt: Self.salt, request(key, pin: Self.pin, verification: true))
        let again = try await device.hmacSecret(
            credentialID: credential, salt: Self.salt, request(key, pin: Self.pin, verification: true))
        let touchOnly = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key))
        #expect(verified.constantTimeEquals(again))
        #expect(!verified.constantTimeEquals(touchOnly), "hmac-secret keeps one secret with uv, another without")
    }

    @Test func cancellingAWaitForATouchSendsCancelToTheKeyAndEndsCancelled() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let waiting = try await keys.start("waiting", touch: .wait)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key))
        let asking = request(waiting)

        let unlock = Task {
            try await device.hmacSecret(credentialID: credential, salt: Self.salt, asking)
        }
        // Cancelled once the key waits for the touch, so the CANCEL must reach it mid-transaction.
        #expect(try await waiting.waitForLogLine("touch?"), "the key never waited: \(waiting.logged())")
        unlock.cancel()
        await #expect(throws: HardwareError.cancelled) { _ = try await unlock.value }
        #expect(try await waiting.waitForLogLine("cancel"), "no CTAPHID CANCEL reached the key: \(waiting.logged())")
    }

    @Test func aTouchWhileTheKeyWaitsGivesTheSameSecretAsAnAtOnceTouch() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key")
        let waiting = try await keys.start("waiting", touch: .wait)
        let device = SecurityKeyDevice()
        let credential = try await device.enrol(request(key))
        let asking = request(waiting)

        let unlock = Task {
            try await device.hmacSecret(credentialID: credential, salt: Self.salt, asking)
        }
        #expect(try await waiting.waitForLogLine("touch?"), "the key never waited: \(waiting.logged())")
        waiting.touch()
        let touched = try await unlock.value
        let atOnce = try await device.hmacSecret(credentialID: credential, salt: Self.salt, request(key))
        #expect(touched.constantTimeEquals(atOnce))
        #expect(waiting.logCount("touched") == 1 && waiting.logCount("cancel") == 0, "\(waiting.logged())")
    }

    @Test func aTransactionCancelledBeforeItStartsNeverAsksForATouch() async throws {
        let keys = try SecurityKeyBench()
        defer { keys.close() }
        let key = try await keys.start("key", touch: .wait)
        let device = SecurityKeyDevice()
        let asking = request(key)

        let enrolment = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await device.enrol(asking)
        }
        await #expect(throws: HardwareError.cancelled) { _ = try await enrolment.value }
        #expect(!key.logged().contains("touch?"))
    }
}
