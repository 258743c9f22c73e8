// SPDX-License-Identifier: Apache-2.0
internal import CFido2
import PuffCrypto
import PuffService

/// The three CTAP2 transactions a slot needs, on a device ``SecurityKeyCall`` opened (the libfido2
/// calls of docs/design/unlock-slots.md §3 fido2). Each blocks until the key answers.
struct OpenSecurityKey {
    let handle: OpaquePointer

    /// makeCredential: ES256, non-resident, `hmac-secret`, a random client-data hash and user id (the
    /// key signs them; Puff keeps no attestation), `uv` when asked, the PIN when given.
    func makeCredential(_ request: SecurityKeyRequest) throws(HardwareError) -> [UInt8] {
        try requireHmacSecret()
        guard let credential = fido_cred_new() else { throw .failed("libfido2 could not allocate a credential") }
        defer {
            var freed: OpaquePointer? = credential
            fido_cred_free(&freed)
        }
        let clientData = SecureRandom.bytes(32)
        let user = SecureRandom.bytes(32)
        try SecurityKeyStatus.check(fido_cred_set_type(credential, COSE_ES256))
        try SecurityKeyStatus.check(fido_cred_set_clientdata_hash(credential, clientData, clientData.count))
        try SecurityKeyStatus.check(fido_cred_set_rp(credential, request.relyingParty, "Puff"))
        try SecurityKeyStatus.check(fido_cred_set_user(credential, user, user.count, "puff", nil, nil))
        try SecurityKeyStatus.check(fido_cred_set_extensions(credential, FIDO_EXT_HMAC_SECRET))
        try SecurityKeyStatus.check(fido_cred_set_rk(credential, FIDO_OPT_FALSE))
        if request.verification { try SecurityKeyStatus.check(fido_cred_set_uv(credential, FIDO_OPT_TRUE)) }
        let status = try Self.withPIN(request.pin) { pin in fido_dev_make_cred(handle, credential, pin) }
        try check(status)
        let length = fido_cred_id_len(credential)
        guard length > 0, let id = fido_cred_id_ptr(credential) else {
            throw .failed("the security key returned no credential id")
        }
        return Array(UnsafeBufferPointer(start: id, count: length))
    }

    /// getAssertion with `up=false` and no extension: whether the key knows `credentialID`, without
    /// a touch (systemd-cryptsetup probes the same way).
    func probe(credentialID: [UInt8], _ request: SecurityKeyRequest) throws(HardwareError) -> Bool {
        let assertion = try Assertion(credentialID: credentialID, relyingParty: request.relyingParty)
        try SecurityKeyStatus.check(fido_assert_set_up(assertion.pointer, FIDO_OPT_FALSE))
        let status = fido_dev_get_assert(handle, assertion.pointer, nil)
        switch status {
        case FIDO_OK: return true
        case FIDO_ERR_NO_CREDENTIALS: return false
        // A key that cannot assert without a touch cannot be probed: let the touch tell.
        case FIDO_ERR_UNSUPPORTED_OPTION, FIDO_ERR_INVALID_OPTION: return true
        default:
            try check(status)
            return false
        }
    }

    /// getAssertion with `hmac-secret` for `salt` (32 bytes), with the presence and verification the
    /// slot was enrolled with (the output differs with and without `uv`). The output goes straight
    /// from libfido2's memory (wiped when freed) into secure memory.
    func hmacSecret(credentialID: [UInt8], salt: [UInt8], _ request: SecurityKeyRequest) throws(HardwareError)
        -> SecureBytes
    {
        let assertion = try Assertion(credentialID: credentialID, relyingParty: request.relyingParty)
        let pointer = assertion.pointer
        try SecurityKeyStatus.check(fido_assert_set_extensions(pointer, FIDO_EXT_HMAC_SECRET))
        try SecurityKeyStatus.check(fido_assert_set_hmac_salt(pointer, salt, salt.count))
        try SecurityKeyStatus.check(fido_assert_set_up(pointer, request.presence ? FIDO_OPT_TRUE : FIDO_OPT_FALSE))
        if request.verification { try SecurityKeyStatus.check(fido_assert_set_uv(pointer, FIDO_OPT_TRUE)) }
        let status = try Self.withPIN(request.pin) { pin in fido_dev_get_assert(handle, pointer, pin) }
        try check(status)
        guard fido_assert_count(pointer) == 1, fido_assert_hmac_secret_len(pointer, 0) == 32,
            let output = fido_assert_hmac_secret_ptr(pointer, 0)
        else {
            throw .failed("the security key returned no hmac-secret output")
        }
        return SecureBytes(copying: UnsafeRawBufferPointer(start: output, count: 32))
    }

    /// Throws the ``HardwareError`` for a libfido2 status, asking the key for its PIN retries
    /// when it refused a PIN.
    private func check(_ status: Int32) throws(HardwareError) {
        try SecurityKeyStatus.check(status) {
            var retries: Int32 = 0
            return fido_dev_get_retry_count(handle, &retries) == FIDO_OK ? Int(retries) : nil
        }
    }

    /// Refuses a key without `hmac-secret` before any touch: its credential could never unlock.
    private func requireHmacSecret() throws(HardwareError) {
        guard let info = fido_cbor_info_new() else { throw .failed("libfido2 could not allocate an info") }
        defer {
            var freed: OpaquePointer? = info
            fido_cbor_info_free(&freed)
        }
        try check(fido_dev_get_cbor_info(handle, info))
        let count = fido_cbor_info_extensions_len(info)
        let names = fido_cbor_info_extensions_ptr(info)
        let found = (0..<count).contains { index in
            names?[index].map { String(cString: $0) == "hmac-secret" } ?? false
        }
        guard found else { throw .failed("the security key has no hmac-secret extension, which a slot needs") }
    }

    /// Runs `body` with the PIN as the NUL-terminated C string libfido2 takes, copied into secure
    /// memory (never a Swift String); nil when there is none.
    static func withPIN(
        _ pin: SecureBytes?, _ body: (UnsafePointer<CChar>?) -> Int32
    ) throws(HardwareError) -> Int32 {
        guard let pin else { return body(nil) }
        guard !pin.withUnsafeBytes({ $0.contains(0) }) else { throw .failed("a PIN cannot contain a NUL byte") }
        let terminated = SecureBytes(count: pin.count + 1) { (target: UnsafeMutableRawBufferPointer) -> Void in
            pin.withUnsafeBytes { source in target.copyMemory(from: source) }
            target[pin.count] = 0
        }
        return terminated.withUnsafeBytes { bytes in body(bytes.baseAddress?.assumingMemoryBound(to: CChar.self)) }
    }
}

/// A libfido2 assertion request for one credential under one relying party, with a fresh random
/// client-data hash; freed with the value.
private final class Assertion {
    var pointer: OpaquePointer

    init(credentialID: [UInt8], relyingParty: String) throws(HardwareError) {
        guard let pointer = fido_assert_new() else { throw .failed("libfido2 could not allocate an assertion") }
        self.pointer = pointer
        let clientData = SecureRandom.bytes(32)
        try SecurityKeyStatus.check(fido_assert_set_clientdata_hash(pointer, clientData, clientData.count))
        try SecurityKeyStatus.check(fido_assert_set_rp(pointer, relyingParty))
        try SecurityKeyStatus.check(fido_assert_allow_cred(pointer, credentialID, credentialID.count))
    }

    deinit {
        var freed: OpaquePointer? = pointer
        fido_assert_free(&freed)
    }
}
