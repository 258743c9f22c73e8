// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffService
import Synchronization

/// One FIDO2 security key for service tests, behaving as a real one does toward Puff: its
/// non-resident credential ids open only on the key that made them, `hmac-secret` outputs differ
/// with and without user verification, a PIN has retries, and a touch can be refused or waited
/// for. ``swap()`` plays another key plugged in. The real key's protocol is tested through
/// libfido2 against `fido2_authenticator.py` (PuffHardware, EndToEndTests).
public final class FakeSecurityKeys: SecurityKeys {
    /// What the key does when a request needs a touch.
    public enum Touch: Sendable {
        /// Touched at once.
        case auto
        /// The person refuses (``HardwareError/denied``).
        case refuse
        /// Waits until ``touch()`` or until the calling task is cancelled (``HardwareError/cancelled``).
        case wait
    }

    /// What the key was asked, for tests to check.
    public struct Calls: Sendable, Equatable {
        public var enrolments = 0
        public var probes = 0
        public var assertions = 0
        /// Whether the last assertion carried a PIN, and asked for presence.
        public var lastHadPIN = false
        public var lastAskedPresence = false
    }

    private struct State {
        var seed = SecureRandom.secureBytes(32)
        var present = true
        var pin: [UInt8]?
        var retries = 8
        var touch = Touch.auto
        var calls = Calls()
        var waiting: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A key, present and touched at once, with `pin` if given; its credentials come from
    /// `seed` (32 bytes) when given, so another instance of that seed is the same key (for
    /// committed fixtures), else from a random one.
    public init(pin: String? = nil, seed: [UInt8]? = nil) {
        state.withLock { state in
            state.pin = pin.map { Array($0.utf8) }
            if let seed { state.seed = SecureBytes(unwipedCopyOf: seed) }
        }
    }

    public var calls: Calls { state.withLock { $0.calls } }

    /// Another key (another seed): credentials made so far are unknown to it.
    public func swap() {
        state.withLock { $0.seed = SecureRandom.secureBytes(32) }
    }

    /// Plugs the key in or out.
    public func setPresent(_ present: Bool) {
        state.withLock { $0.present = present }
    }

    public func setTouch(_ touch: Touch) {
        state.withLock { $0.touch = touch }
    }

    /// How many waits for a touch are pending.
    public var waitingForTouch: Int { state.withLock { $0.waiting.count } }

    /// Touches the key: every pending wait goes on.
    public func touch() {
        let waiting = state.withLock { state in
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiting { waiter.resume(returning: true) }
    }

    public func enrol(_ request: SecurityKeyRequest) async throws(HardwareError) -> [UInt8] {
        let seed = try begin(request) { $0.enrolments += 1 }
        try await presence(request)
        let nonce = SecureRandom.bytes(16)
        return nonce + Self.mac(seed, nonce + Array(request.relyingParty.utf8)).prefix(16)
    }

    public func holds(credentialID: [UInt8], _ request: SecurityKeyRequest) async throws(HardwareError) -> Bool {
        let (seed, present) = state.withLock { state in
            state.calls.probes += 1
            return (state.seed, state.present)
        }
        guard present else { return false }
        return Self.belongs(credentialID, to: seed, relyingParty: request.relyingParty)
    }

    public func hmacSecret(
        credentialID: [UInt8], salt: [UInt8], _ request: SecurityKeyRequest
    ) async throws(HardwareError) -> SecureBytes {
        let seed = try begin(request) { calls in
            calls.assertions += 1
            calls.lastHadPIN = request.pin != nil
            calls.lastAskedPresence = request.presence
        }
        guard Self.belongs(credentialID, to: seed, relyingParty: request.relyingParty) else { throw .noCredential }
        try await presence(request)
        let verified: UInt8 = request.pin != nil || request.verification ? 1 : 0
        return SecureBytes(unwipedCopyOf: Self.mac(seed, credentialID + [verified] + salt))
    }

    /// Counts the call, checks presence and the PIN; returns the key's seed.
    private func begin(_ request: SecurityKeyRequest, count: (inout Calls) -> Void) throws(HardwareError) -> SecureBytes
    {
        let result: Result<SecureBytes, HardwareError> = state.withLock { state in
            count(&state.calls)
            guard state.present else { return .failure(.unavailable(request.device ?? "no security key")) }
            if let pin = state.pin {
                guard state.retries > 0 else { return .failure(.pinBlocked) }
                if let given = request.pin {
                    guard given.unprotectedArray() == pin else {
                        state.retries -= 1
                        return .failure(state.retries == 0 ? .pinBlocked : .pinInvalid(retries: state.retries))
                    }
                    state.retries = 8
                } else if request.verification {
                    return .failure(.pinRequired)
                }
            } else if request.pin != nil {
                return .failure(.failed("the key has no PIN set"))
            }
            return .success(state.seed)
        }
        return try result.get()
    }

    /// Waits for the touch a request asks for, as the key's ``Touch`` says.
    private func presence(_ request: SecurityKeyRequest) async throws(HardwareError) {
        guard request.presence else { return }
        let touch = state.withLock { $0.touch }
        switch touch {
        case .auto: return
        case .refuse: throw .denied
        case .wait:
            let number = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            let touched = await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                    let cancelled = state.withLock { state in
                        guard !Task.isCancelled else { return true }
                        state.waiting[number] = waiter
                        return false
                    }
                    if cancelled { waiter.resume(returning: false) }
                }
            } onCancel: {
                state.withLock { $0.waiting.removeValue(forKey: number) }?.resume(returning: false)
            }
            guard touched else { throw .cancelled }
        }
    }

    private static func belongs(_ credentialID: [UInt8], to seed: SecureBytes, relyingParty: String) -> Bool {
        guard credentialID.count == 32 else { return false }
        let nonce = Array(credentialID.prefix(16))
        return Array(mac(seed, nonce + Array(relyingParty.utf8)).prefix(16)) == Array(credentialID.suffix(16))
    }

    /// 32 bytes keyed by the key's seed.
    private static func mac(_ seed: SecureBytes, _ input: [UInt8]) -> [UInt8] {
        guard let hash = try? KeyedHash(key: seed) else { return [] }
        return hash.digest(input + [0]).bytes + hash.digest(input + [1]).bytes
    }
}
