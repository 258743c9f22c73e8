// SPDX-License-Identifier: Apache-2.0
internal import CPuffTPM
public import PuffCrypto

/// Why a TPM refused to seal or unseal (docs/design/unlock-slots.md §3 tpm2).
public enum TPM2Error: Error, Equatable, Sendable {
    /// The TCTI could not be opened or the TPM did not answer: no `/dev/tpmrm0`, no socket, or no
    /// permission (on Debian the person needs group `tss`). The TSS2 response code is attached.
    case unavailable(responseCode: UInt32)
    /// The blob is not a sealed object this code wrote (truncated, padded, wrong sizes).
    case malformedBlob
    /// The TPM's integrity check failed: the blob was sealed by another TPM (or a replaced TPM state),
    /// or its bytes were altered.
    case otherTPM
    /// The PCRs the blob is bound to no longer hold their values from seal time.
    case pcrChanged
    /// The secret is empty or longer than a sealed object holds, or the PCR mask names PCRs above 23.
    case badArgument
    /// The TCTI is not one ``TPM2Sealer/accepts(tcti:)`` takes; tpm2-tss was not asked.
    case refusedTCTI
    /// Any other TPM or TSS failure, with its response code.
    case failed(responseCode: UInt32)
}

/// Seals short secrets with a TPM 2.0 through tpm2-tss's ESAPI (the C target `CPuffTPM`).
///
/// Every call opens the TCTI, creates the owner-hierarchy primary key (not persisted), does its work,
/// flushes each transient object and session it made, and closes the TCTI: swtpm and a TPM without a
/// resource manager serve one client at a time, so nothing is held between calls. Objects are created
/// exempt from dictionary-attack lockout. Calls block for 5-30 ms: run them off the cooperative pool, one
/// at a time per TPM.
public struct TPM2Sealer: Sendable {
    /// The TPM used when none is named: the kernel's resource manager.
    public static let defaultDevice = "device:/dev/tpmrm0"

    /// The tpm2-tss TCTI configuration, e.g. `device:/dev/tpmrm0` or `swtpm:path=/run/…/sock`.
    public let tcti: String

    public init(tcti: String = TPM2Sealer.defaultDevice) {
        self.tcti = tcti
    }

    /// Whether `tcti` names a TPM this code talks to: `device` (alone, or with an absolute path),
    /// `swtpm`, `mssim` or `tabrmd` (tpm2-abrmd), with no control characters. Any other TCTI is refused before tpm2-tss
    /// loads it: its `cmd` TCTI, which Debian installs, runs its configuration as a shell command,
    /// and a client's `AddSlot` may name the device.
    public static func accepts(tcti: String) -> Bool {
        guard !tcti.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
        else { return false }
        let name = tcti.prefix { $0 != ":" }
        let configuration = tcti.dropFirst(name.count + 1)
        switch name {
        case "device": return configuration.isEmpty || configuration.hasPrefix("/")
        case "swtpm", "mssim", "tabrmd": return true
        default: return false
        }
    }

    /// Seals `secret` under this TPM; binds it to the current values of the sha256 PCRs in `pcrMask`
    /// (bit i = PCR i; 0 binds none). Returns the blob (TPM2B_PUBLIC | TPM2B_PRIVATE, about 208-240
    /// bytes), which opens only inside this TPM.
    public func seal(_ secret: SecureBytes, pcrMask: UInt32 = 0) throws(TPM2Error) -> [UInt8] {
        guard Self.accepts(tcti: tcti) else { throw .refusedTCTI }
        var blob = [UInt8](repeating: 0, count: Int(PUFF_TPM_BLOB_MAX))
        var length = 0
        var responseCode: UInt32 = 0
        let status = secret.withUnsafeBytes { bytes in
            blob.withUnsafeMutableBufferPointer { out in
                puff_tpm_seal(
                    tcti, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, pcrMask,
                    out.baseAddress, out.count, &length, &responseCode)
            }
        }
        try Self.check(status, responseCode)
        return Array(blob.prefix(length))
    }

    /// Unseals a blob from ``seal(_:pcrMask:)`` with the same `pcrMask`.
    public func unseal(_ blob: [UInt8], pcrMask: UInt32 = 0) throws(TPM2Error) -> SecureBytes {
        guard Self.accepts(tcti: tcti) else { throw .refusedTCTI }
        var length = 0
        var responseCode: UInt32 = 0
        var status = PUFF_TPM_FAILED
        // Unsealed straight into secure memory, then copied into a value of the exact size.
        let buffer = SecureBytes(count: Int(PUFF_TPM_SECRET_MAX)) { (out: UnsafeMutableRawBufferPointer) -> Void in
            status = blob.withUnsafeBufferPointer { input in
                puff_tpm_unseal(
                    tcti, input.baseAddress, input.count, pcrMask,
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &length, &responseCode)
            }
        }
        try Self.check(status, responseCode)
        return buffer.withUnsafeBytes { bytes in
            SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    private static func check(_ status: puff_tpm_status, _ responseCode: UInt32) throws(TPM2Error) {
        switch status {
        case PUFF_TPM_OK: return
        case PUFF_TPM_UNAVAILABLE: throw .unavailable(responseCode: responseCode)
        case PUFF_TPM_MALFORMED_BLOB: throw .malformedBlob
        case PUFF_TPM_OTHER_TPM: throw .otherTPM
        case PUFF_TPM_PCR_CHANGED: throw .pcrChanged
        case PUFF_TPM_BAD_ARGUMENT: throw .badArgument
        default: throw .failed(responseCode: responseCode)
        }
    }
}
