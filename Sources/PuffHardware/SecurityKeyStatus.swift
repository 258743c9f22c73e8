// SPDX-License-Identifier: Apache-2.0
internal import CFido2
import PuffService

/// libfido2's status codes as ``HardwareError``s: the one place they are told apart.
enum SecurityKeyStatus {
    /// Throws nothing for `FIDO_OK`, else the ``HardwareError`` for `status`; `retries` asks the key
    /// how many PIN tries are left (only called when the PIN was wrong).
    static func check(_ status: Int32, retries: () -> Int? = { nil }) throws(HardwareError) {
        switch status {
        case FIDO_OK: return
        case FIDO_ERR_NO_CREDENTIALS: throw .noCredential
        case FIDO_ERR_PIN_INVALID: throw .pinInvalid(retries: retries())
        case FIDO_ERR_PIN_BLOCKED: throw .pinBlocked
        case FIDO_ERR_PIN_REQUIRED: throw .pinRequired
        // Refused on the key, or no touch before the key (or the wait limit) gave up.
        case FIDO_ERR_OPERATION_DENIED, FIDO_ERR_ACTION_TIMEOUT, FIDO_ERR_USER_ACTION_TIMEOUT, FIDO_ERR_UV_INVALID:
            throw .denied
        case FIDO_ERR_KEEPALIVE_CANCEL: throw .cancelled
        case FIDO_ERR_PIN_AUTH_BLOCKED:
            throw .failed("the security key refuses PINs until it is unplugged and plugged in again")
        case FIDO_ERR_PIN_NOT_SET: throw .failed("the security key has no PIN set")
        default: throw .failed(words(status))
        }
    }

    /// libfido2's name for `status`, e.g. `FIDO_ERR_RX`.
    static func words(_ status: Int32) -> String {
        fido_strerr(status).map { String(cString: $0) } ?? "libfido2 status \(status)"
    }
}
