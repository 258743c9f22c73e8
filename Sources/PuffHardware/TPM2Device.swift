// SPDX-License-Identifier: Apache-2.0
internal import Dispatch
import Glibc
public import PuffCrypto
public import PuffService

/// The TPM that puffd seals tpm2 slots with: ``TPM2Sealer`` behind ``TPMSealing``, its errors in
/// ``HardwareError``'s words (docs/design/unlock-slots.md §3 tpm2, §4).
///
/// Every call runs on one serial Dispatch queue shared by the whole process, off Swift's cooperative
/// pool: a call blocks its thread for 5-30 ms (longer on a busy TPM), and swtpm and a TPM without a
/// resource manager serve one client at a time, so two calls at once would only queue in the kernel
/// or block on the socket.
public struct TPM2Device: TPMSealing {
    /// The TCTI used when a call names none: `[unlock] tpm2_device` or `--tpm2-device`.
    public let tcti: String

    /// Where every TPM call of this process runs, one at a time.
    private static let queue = DispatchQueue(label: "puff.tpm2")

    public init(tcti: String = TPM2Sealer.defaultDevice) {
        self.tcti = tcti
    }

    public func seal(_ secret: SecureBytes, pcrMask: UInt32, device: String?) async throws(HardwareError) -> [UInt8] {
        let tcti = device ?? self.tcti
        return try await BlockingWork.run(on: Self.queue) { () throws(HardwareError) in
            do throws(TPM2Error) {
                return try TPM2Sealer(tcti: tcti).seal(secret, pcrMask: pcrMask)
            } catch {
                throw Self.hardwareError(error, tcti: tcti)
            }
        }
    }

    public func unseal(_ blob: [UInt8], pcrMask: UInt32, device: String?) async throws(HardwareError) -> SecureBytes {
        let tcti = device ?? self.tcti
        return try await BlockingWork.run(on: Self.queue) { () throws(HardwareError) in
            do throws(TPM2Error) {
                return try TPM2Sealer(tcti: tcti).unseal(blob, pcrMask: pcrMask)
            } catch {
                throw Self.hardwareError(error, tcti: tcti)
            }
        }
    }

    /// `error` as the service sees it; an unavailable TPM is named by its TCTI, with the likely reason
    /// when the device node is there but this process may not open it.
    static func hardwareError(_ error: TPM2Error, tcti: String) -> HardwareError {
        switch error {
        case .unavailable(let code):
            return .unavailable(unavailableText(tcti: tcti, responseCode: code))
        // A blob that is not one of ours can only come from an altered header: as an altered blob.
        case .malformedBlob, .otherTPM: return .otherTPM
        case .pcrChanged: return .pcrChanged
        case .refusedTCTI: return .unavailable(refusedTCTIText)
        case .badArgument: return .failed("TPM: a secret of 1-128 bytes and PCRs 0-23 only")
        // A TCTI-layer code mid-call: the TPM went away after the connection opened (swtpm stopped).
        case .failed(let code) where code & 0xFF_0000 == tctiLayer:
            return .unavailable(unavailableText(tcti: tcti, responseCode: code))
        case .failed(let code): return .failed("TPM error \(hex(code))")
        }
    }

    /// What a call naming a TCTI ``TPM2Sealer/accepts(tcti:)`` refuses is told; the TCTI itself is not
    /// repeated, as a client chose it.
    static let refusedTCTIText = "not a TPM puffd uses: device:PATH, swtpm:…, mssim:… or tabrmd:… only"

    /// "device:/dev/tpmrm0 (…)": which TPM, and why when the reason can be told without the TPM.
    /// `mayOpen` stands in for access(2) in tests, which run as root here.
    static func unavailableText(
        tcti: String, responseCode: UInt32, mayOpen: (String) -> Bool = { access($0, R_OK | W_OK) == 0 }
    ) -> String {
        if let path = devicePath(tcti), access(path, F_OK) == 0, !mayOpen(path) {
            return "\(tcti) (no permission to open \(path): the user needs group tss)"
        }
        return "\(tcti) (no TPM answered: TSS2 error \(hex(responseCode)))"
    }

    /// The device node a `device:` TCTI opens (`device` alone: tpm2-tss's default, /dev/tpmrm0 first).
    static func devicePath(_ tcti: String) -> String? {
        if tcti == "device" { return "/dev/tpmrm0" }
        guard tcti.hasPrefix("device:") else { return nil }
        let path = String(tcti.dropFirst("device:".count))
        return path.isEmpty ? "/dev/tpmrm0" : path
    }

    /// TSS2_TCTI_RC_LAYER: errors of the transport, not of the TPM.
    private static let tctiLayer: UInt32 = 10 << 16

    private static func hex(_ code: UInt32) -> String { "0x" + String(code, radix: 16) }
}
