// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffHardware
import PuffTesting
import Testing

/// TPM2Sealer against a real swtpm per test (docs/design/unlock-slots.md §3 tpm2, §5 item 4).
@Suite(
    .enabled(
        if: SoftwareTPM.canRun,
        "needs swtpm and tpm2-tools (Debian: swtpm swtpm-tools tpm2-tools; `make deps` installs them)"))
struct TPM2SealerTests {
    static let pcr7: UInt32 = 1 << 7

    @Test func aSealedSecretUnsealsToTheSameBytesInTheSameTPM() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let blob = try sealer.seal(secret)
        #expect((150...400).contains(blob.count), "blob of \(blob.count) bytes")
        let unsealed = try sealer.unseal(blob)
        #expect(unsealed.count == 32)
        #expect(unsealed.constantTimeEquals(secret))
    }

    @Test func aBlobDoesNotOpenInAnotherTPMState() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let blob = try TPM2Sealer(tcti: first.tcti).seal(SecureRandom.secureBytes(32))
        #expect(throws: TPM2Error.otherTPM) { try TPM2Sealer(tcti: second.tcti).unseal(blob) }
        #expect(try second.loadedHandles() == [])
    }

    @Test func aPCRBoundBlobRefusesOnceThePCRIsExtended() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let bound = try sealer.seal(secret, pcrMask: Self.pcr7)
        let unbound = try sealer.seal(secret)
        #expect(try sealer.unseal(bound, pcrMask: Self.pcr7).constantTimeEquals(secret))

        try tpm.tool("tpm2_pcrextend", ["7:sha256=" + String(repeating: "ab", count: 32)])

        #expect(throws: TPM2Error.pcrChanged) { try sealer.unseal(bound, pcrMask: Self.pcr7) }
        // The unbound blob still opens: the refusal comes from the PCR binding alone.
        #expect(try sealer.unseal(unbound).constantTimeEquals(secret))
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func aBlobWithOneFlippedByteIsRefusedByTheIntegrityCheck() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: tpm.tcti)
        var blob = try sealer.seal(SecureRandom.secureBytes(32))
        // The last byte lies in the private part's encrypted sensitive area.
        blob[blob.count - 1] ^= 0x01
        #expect(throws: TPM2Error.otherTPM) { try sealer.unseal(blob) }
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func aTruncatedOrPaddedBlobIsRefusedBeforeReachingTheTPM() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: tpm.tcti)
        let blob = try sealer.seal(SecureRandom.secureBytes(32))
        #expect(throws: TPM2Error.malformedBlob) { try sealer.unseal(Array(blob.dropLast())) }
        #expect(throws: TPM2Error.malformedBlob) { try sealer.unseal(blob + [0]) }
    }

    @Test func noTransientObjectOrSessionStaysLoadedAfterAnyCall() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: tpm.tcti)
        let secret = SecureRandom.secureBytes(32)
        let blob = try sealer.seal(secret, pcrMask: Self.pcr7)
        // More calls than swtpm has object slots (3): a leak would fail them with 0x902.
        for _ in 0..<4 { #expect(try sealer.unseal(blob, pcrMask: Self.pcr7).constantTimeEquals(secret)) }
        #expect(throws: TPM2Error.otherTPM) { try sealer.unseal(Array(blob.dropLast()) + [blob.last! ^ 1]) }
        // An early run hung here once: another test's swtpm daemon, spawned while this test's connection
        // was open, inherited that socket and kept it open, and swtpm serves one connection at a time.
        // SoftwareTPM now spawns with every descriptor above 2 closed.
        #expect(try tpm.loadedHandles() == [])
    }

    @Test func aTPMThatIsNotThereIsReportedUnavailable() throws {
        let tpm = try SoftwareTPM()
        let sealer = TPM2Sealer(tcti: "swtpm:path=\(tpm.folder.path)/absent")
        #expect {
            try sealer.seal(SecureRandom.secureBytes(32))
        } throws: { error in
            guard case .unavailable = error as? TPM2Error else { return false }
            return true
        }
    }

    @Test func anEmptyOrOversizedSecretIsRefused() throws {
        let sealer = TPM2Sealer(tcti: "swtpm:path=/nonexistent")
        #expect(throws: TPM2Error.badArgument) { try sealer.seal(SecureBytes.empty) }
        #expect(throws: TPM2Error.badArgument) { try sealer.seal(SecureRandom.secureBytes(129)) }
    }
}
