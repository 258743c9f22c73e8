// SPDX-License-Identifier: Apache-2.0
internal import CFido2
import Dispatch
public import PuffCrypto
public import PuffService

/// FIDO2 security keys through libfido2 (docs/design/unlock-slots.md §3 fido2): non-resident ES256
/// credentials with the `hmac-secret` extension, whose output for a slot's salt is the slot's key.
///
/// Every call opens the device, does its one transaction and closes it, one call at a time per
/// instance (a key serves one transaction at once). The blocking libfido2 calls run on a Dispatch
/// thread, never on the cooperative pool; cancelling the calling task sends CTAPHID CANCEL to a key
/// waiting for a touch, and the call ends with ``HardwareError/cancelled``.
public struct SecurityKeyDevice: SecurityKeys {
    /// The device used when a request names none: a libfido2 path (`/dev/hidraw3`), or `unix:PATH` for
    /// an authenticator on a `SOCK_SEQPACKET` socket (the tests' software key); nil: the first key
    /// libfido2's discovery finds.
    public let device: String?
    /// How long one transaction may take, a wait for a touch included: a key that never answers
    /// must not hold an unlock for ever (a real key gives up on a touch after about 30 s on its own).
    public let waitLimit: Duration
    /// The calls of this instance, one at a time.
    private let calls: DispatchQueue

    public init(device: String? = nil, waitLimit: Duration = .seconds(120)) {
        self.device = device
        self.waitLimit = waitLimit
        self.calls = DispatchQueue(label: "puff.fido2")
    }

    public func enrol(_ request: SecurityKeyRequest) async throws(HardwareError) -> [UInt8] {
        try await transaction(request) { (key: OpenSecurityKey) throws(HardwareError) -> [UInt8] in
            try key.makeCredential(request)
        }
    }

    public func holds(credentialID: [UInt8], _ request: SecurityKeyRequest) async throws(HardwareError) -> Bool {
        // A refused name is told as such, not as a device where nothing answers.
        _ = try name(for: request)
        do {
            return try await transaction(request) { (key: OpenSecurityKey) throws(HardwareError) -> Bool in
                try key.probe(credentialID: credentialID, request)
            }
        } catch .unavailable {
            // No key plugged in (or none at the path named): it holds nothing.
            return false
        }
    }

    public func hmacSecret(
        credentialID: [UInt8], salt: [UInt8], _ request: SecurityKeyRequest
    ) async throws(HardwareError) -> SecureBytes {
        try await transaction(request) { (key: OpenSecurityKey) throws(HardwareError) -> SecureBytes in
            try key.hmacSecret(credentialID: credentialID, salt: salt, request)
        }
    }

    /// Opens the request's device (else this instance's, else the first one found) on this
    /// instance's queue, runs `body` with it and closes it; the task's cancellation cancels it.
    private func transaction<Value: Sendable>(
        _ request: SecurityKeyRequest,
        _ body: @escaping @Sendable (OpenSecurityKey) throws(HardwareError) -> Value
    ) async throws(HardwareError) -> Value {
        let call = SecurityKeyCall()
        let name = try name(for: request)
        let milliseconds = Self.milliseconds(waitLimit)
        let calls = calls
        let outcome: Result<Value, HardwareError> = await withTaskCancellationHandler {
            do throws(HardwareError) {
                return .success(
                    try await BlockingWork.run(on: calls) { () throws(HardwareError) -> Value in
                        try call.run(device: name, timeoutMilliseconds: milliseconds, body)
                    })
            } catch {
                return .failure(error)
            }
        } onCancel: {
            call.cancel()
        }
        return try outcome.get()
    }

    /// What a call naming a device ``accepts(device:)`` refuses is told; the name itself is not
    /// repeated, as a client chose it.
    public static let refusedDeviceText =
        "not a security key puffd uses: /dev/hidrawN or unix: and a socket's absolute path only"

    /// Whether `name` names a device this code opens: a hidraw node (`/dev/hidraw3`, what
    /// `fido2-token -L` lists on Linux), or `unix:` and the absolute path of an authenticator's
    /// socket without `.`, `..` or empty components, short enough for a socket address; no NUL
    /// or other control character anywhere. A client's `AddSlot`, `UnlockWith` and `Rekey` name the
    /// device, so anything else is refused before libfido2 sees it: libfido2 opens any other path
    /// with `open(O_RDWR)` (a file planted in the vault folder, a terminal it would then control, a
    /// FUSE file that never answers) and has transports of its own (`nfc:`, `pcsc://`).
    public static func accepts(device name: String) -> Bool {
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        guard name.hasPrefix("unix:") else { return name.wholeMatch(of: /\/dev\/hidraw[0-9]{1,4}/) != nil }
        let path = name.dropFirst("unix:".count)
        // sun_path holds 108 bytes, the terminating NUL included.
        guard path.hasPrefix("/"), path.utf8.count < 108 else { return false }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }

    /// The device `request` names, else this instance's; nil: the first key found.
    ///
    /// - Throws: ``HardwareError/unavailable(_:)`` with ``refusedDeviceText`` for a name
    ///   ``accepts(device:)`` refuses.
    private func name(for request: SecurityKeyRequest) throws(HardwareError) -> String? {
        guard let name = request.device ?? device else { return nil }
        guard Self.accepts(device: name) else { throw .unavailable(Self.refusedDeviceText) }
        return name
    }

    /// `limit` in whole milliseconds, as libfido2's `fido_dev_set_timeout` takes it.
    static func milliseconds(_ limit: Duration) -> Int32 {
        let (seconds, attoseconds) = limit.components
        return Int32(clamping: max(0, seconds) * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
