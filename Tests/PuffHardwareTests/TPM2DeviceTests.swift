// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffService
import PuffTesting
import Testing

@testable import PuffHardware

/// TPM2Device, the service's `TPMSealing`, against a real swtpm per test (docs/design/unlock-slots.md
/// §3 tpm2, §5 item 4): what the service is told for each way a TPM refuses, and that nothing stays
/// loaded in the TPM after any call.
@Suite(
    .enabled(
        if: SoftwareTPM.canRun,
        "needs swtpm and tpm2-tools (Debian: swtpm swtpm-tools tpm2-tools; `make deps` installs them)"))
struct TPM2DeviceTests {
    static let pcr7: UInt32 = 1 << 7

    @Test func aSecretSealedThroughTheConfiguredDeviceUnsealsToTheSameBytes() async throws {
        let tpm = try SoftwareTPM()
        let device = TPM2Device(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let blob = try await device.seal(secret, pcrMask: 0, device: nil)
        let unsealed = try await device.unseal(blob, pcrMask: 0, device: nil)
        #expect(unsealed.constantTimeEquals(secret))
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func aDeviceNamedInTheCallIsUsedInsteadOfTheConfiguredOne() async throws {
        let tpm = try SoftwareTPM()
        // The configured TCTI leads nowhere: only the named one can succeed.
        let device = TPM2Device(tcti: "swtpm:path=\(tpm.folder.path)/absent")
        let secret = SecureRandom.secureBytes(32)
        let blob = try await device.seal(secret, pcrMask: 0, device: tpm.tcti)
        #expect(try await device.unseal(blob, pcrMask: 0, device: tpm.tcti).constantTimeEquals(secret))
    }

    @Test func aTCTIThatRunsACommandIsRefusedBeforeTpm2TssSeesIt() async throws {
        // tpm2-tss's `cmd` TCTI (Debian installs libtss2-tcti-cmd) runs its configuration as a shell
        // command, and a client's AddSlot names the device: puffd must never get that far.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tcti-\(UUID().uuidString)")
        let device = TPM2Device(tcti: "swtpm:path=/nonexistent")
        let command = "cmd:touch \(marker.path)"
        let refused = HardwareError.unavailable(TPM2Device.refusedTCTIText)
        await #expect(throws: refused) {
            try await device.seal(SecureRandom.secureBytes(32), pcrMask: 0, device: command)
        }
        await #expect(throws: refused) {
            try await device.unseal([0, 1, 2], pcrMask: 0, device: command)
        }
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        try? FileManager.default.removeItem(at: marker)
    }

    @Test func aBlobFromAnotherTPMStateIsReportedAsAnotherTPM() async throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let blob = try await TPM2Device(tcti: first.tcti).seal(SecureRandom.secureBytes(32), pcrMask: 0, device: nil)
        await #expect(throws: HardwareError.otherTPM) {
            try await TPM2Device(tcti: second.tcti).unseal(blob, pcrMask: 0, device: nil)
        }
        #expect(try second.loadedHandles() == [])
    }

    @Test func aTruncatedBlobIsReportedAsAnotherTPM() async throws {
        let tpm = try SoftwareTPM()
        let device = TPM2Device(tcti: tpm.tcti)
        let blob = try await device.seal(SecureRandom.secureBytes(32), pcrMask: 0, device: nil)
        await #expect(throws: HardwareError.otherTPM) {
            try await device.unseal(Array(blob.dropLast()), pcrMask: 0, device: nil)
        }
    }

    @Test func aPCRBoundBlobIsReportedAsPCRChangedOnceThePCRIsExtended() async throws {
        let tpm = try SoftwareTPM()
        let device = TPM2Device(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let blob = try await device.seal(secret, pcrMask: Self.pcr7, device: nil)
        #expect(try await device.unseal(blob, pcrMask: Self.pcr7, device: nil).constantTimeEquals(secret))

        try tpm.tool("tpm2_pcrextend", ["7:sha256=" + String(repeating: "cd", count: 32)])

        await #expect(throws: HardwareError.pcrChanged) {
            try await device.unseal(blob, pcrMask: Self.pcr7, device: nil)
        }
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func callsFromManyTasksAtOnceAllSucceedAndLeaveNothingLoaded() async throws {
        let tpm = try SoftwareTPM()
        let device = TPM2Device(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let blob = try await device.seal(secret, pcrMask: Self.pcr7, device: nil)
        // swtpm serves one connection at a time and holds 3 objects: interleaved or leaking calls fail.
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    (try? await device.unseal(blob, pcrMask: Self.pcr7, device: nil))?.constantTimeEquals(secret)
                        ?? false
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 6))
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func aStoppedTPMIsReportedUnavailableWithItsDeviceNamed() async throws {
        let tpm = try SoftwareTPM()
        let device = TPM2Device(tcti: tpm.tcti)
        let blob = try await device.seal(SecureRandom.secureBytes(32), pcrMask: 0, device: nil)
        try tpm.stop()
        for call in 0..<2 {
            let error = await #expect(throws: HardwareError.self) {
                if call == 0 {
                    _ = try await device.unseal(blob, pcrMask: 0, device: nil)
                } else {
                    _ = try await device.seal(SecureRandom.secureBytes(32), pcrMask: 0, device: nil)
                }
            }
            guard case .unavailable(let text) = error else {
                Issue.record("call \(call): \(String(describing: error)), not .unavailable")
                continue
            }
            #expect(text.hasPrefix(tpm.tcti), "\(text)")
        }
    }

    @Test func aDeviceNodeThatCannotBeOpenedSaysTheUserNeedsGroupTss() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tpmrm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let node = folder.appendingPathComponent("tpmrm0").path
        #expect(FileManager.default.createFile(atPath: node, contents: nil))
        // As Debian's udev rule leaves /dev/tpmrm0 (root:tss 0660) to a user outside tss; the tests run
        // as root here, for whom access(2) always allows, so the refusal is told, not made.
        let refused = TPM2Device.unavailableText(tcti: "device:\(node)", responseCode: 0xA_000A) { _ in false }
        #expect(refused == "device:\(node) (no permission to open \(node): the user needs group tss)")
        let allowed = TPM2Device.unavailableText(tcti: "device:\(node)", responseCode: 0xA_000A) { _ in true }
        #expect(allowed == "device:\(node) (no TPM answered: TSS2 error 0xa000a)")
        // No node at all: not a permission matter, whatever access(2) would say.
        let absent = TPM2Device.unavailableText(tcti: "device:\(folder.path)/absent", responseCode: 0xA_000A) { _ in
            false
        }
        #expect(absent == "device:\(folder.path)/absent (no TPM answered: TSS2 error 0xa000a)")
    }
}
