// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Why a TPM or a FIDO2 security key did not give a slot's key (docs/design/unlock-slots.md §4).
/// DBusErrorMapping turns each case into a D-Bus error name; none carries a secret.
public enum HardwareError: Error, Equatable, Sendable {
    /// No TPM or no security key answered at the device named (or found by discovery), or it could
    /// not be opened (on Debian, using `/dev/tpmrm0` needs group `tss`). The text says which device.
    case unavailable(String)
    /// The sealed blob belongs to another TPM, or the TPM's state was replaced, or it was altered.
    case otherTPM
    /// The PCRs the slot is bound to no longer hold the values they had at enrolment.
    case pcrChanged
    /// The security key present does not hold the slot's credential (another key, or a reset one).
    case noCredential
    /// The key's PIN is needed and none was given.
    case pinRequired
    /// The PIN was wrong; `retries` left before the key blocks it, when the key says.
    case pinInvalid(retries: Int?)
    /// The key has blocked its PIN after too many wrong ones (it must be reset: its credentials go).
    case pinBlocked
    /// The person did not touch the key, or refused on it.
    case denied
    /// The wait for a touch was cancelled (a prompt dismissed, the caller gone).
    case cancelled
    /// Anything else the TPM or libfido2 reported, with its code in words.
    case failed(String)
    /// OpenBao did not decrypt (or encrypt) a transit slot's key: it refused (a policy without
    /// `transit/decrypt/<key>`, a revoked token), or did not answer; the text says which, with
    /// the address, never the token.
    case transit(String)
}

/// Seals a slot's key with a TPM (the real one is `PuffHardware`'s, over tpm2-tss; tests inject a
/// fake). Calls block for milliseconds and use the TPM alone: implementations serialise them.
public protocol TPMSealing: Sendable {
    /// Seals `secret` in the TPM named by `device` (a tpm2-tss TCTI string; nil: the configured one),
    /// bound to the current values of the sha256 PCRs in `pcrMask` (0: none). Returns the blob.
    func seal(_ secret: SecureBytes, pcrMask: UInt32, device: String?) async throws(HardwareError) -> [UInt8]
    /// Opens a blob from ``seal(_:pcrMask:device:)`` with the same mask.
    func unseal(_ blob: [UInt8], pcrMask: UInt32, device: String?) async throws(HardwareError) -> SecureBytes
}

/// What enrolling a FIDO2 credential asks of the key.
public struct SecurityKeyRequest: Sendable {
    /// The relying party, `io.puff.vault` for vault slots.
    public var relyingParty: String
    /// Whether a touch is needed (the default).
    public var presence: Bool
    /// Whether the key must verify the person itself (`uv`).
    public var verification: Bool
    /// The key's PIN, when the slot is enrolled with one; read from a file descriptor or a prompt.
    public var pin: SecureBytes?
    /// A libfido2 device path, or `unix:PATH` for an authenticator on a `SOCK_SEQPACKET` socket;
    /// nil: the configured one, else the first key libfido2's discovery finds.
    public var device: String?

    public init(
        relyingParty: String, presence: Bool = true, verification: Bool = false, pin: SecureBytes? = nil,
        device: String? = nil
    ) {
        self.relyingParty = relyingParty
        self.presence = presence
        self.verification = verification
        self.pin = pin
        self.device = device
    }
}

/// FIDO2 security keys through libfido2 (the real one is `PuffHardware`'s; tests inject a fake).
/// A waiting touch ends with ``HardwareError/cancelled`` when the calling task is cancelled.
public protocol SecurityKeys: Sendable {
    /// Makes a non-resident credential with the `hmac-secret` extension; returns its id.
    func enrol(_ request: SecurityKeyRequest) async throws(HardwareError) -> [UInt8]
    /// Whether the key present holds `credentialID`, asked without a touch (an assertion with
    /// `up=false`, as systemd-cryptsetup probes); false when no key is present.
    func holds(credentialID: [UInt8], _ request: SecurityKeyRequest) async throws(HardwareError) -> Bool
    /// The 32-byte `hmac-secret` output for `salt` under `credentialID`.
    func hmacSecret(
        credentialID: [UInt8], salt: [UInt8], _ request: SecurityKeyRequest
    ) async throws(HardwareError) -> SecureBytes
}
