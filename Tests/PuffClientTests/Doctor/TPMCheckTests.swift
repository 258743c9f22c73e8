// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

@testable import PuffClient

/// Doctor's TPM check: a TPM node this user cannot open says what to do about group tss.
struct TPMCheckTests {
    static let node = "/dev/tpmrm0"

    @Test func aNodeThatRefusesThisUserSaysTheUserNeedsGroupTss() {
        let findings = TPMCheck.findings(TPMFacts(path: Self.node, exists: true, openError: EACCES))
        #expect(
            findings == [
                DoctorFinding(
                    .warn, "/dev/tpmrm0 exists but cannot be opened (Permission denied): tpm2 slots will not open",
                    next: "the user needs group tss: `sudo usermod -aG tss $USER`, then log out and in again")
            ])
    }

    @Test func aUserAddedToTssWhoseSessionPredatesItIsToldToLogInAgain() {
        let facts = TPMFacts(
            path: Self.node, exists: true, openError: EACCES, processHasTss: false, userListedInTss: true)
        #expect(
            TPMCheck.findings(facts).map(\.next) == [
                "the user is in group tss but this session is not: log out and in again (or restart puffd's session)"
            ])
    }

    @Test func aMachineWithoutGroupTssIsToldWhatAccessIsNeeded() {
        let facts = TPMFacts(path: Self.node, exists: true, openError: EACCES, tssGroupExists: false)
        #expect(
            TPMCheck.findings(facts).map(\.next) == [
                "the user needs read and write access to /dev/tpmrm0; Debian's tpm-udev gives it to group tss"
            ])
    }

    @Test func aCollectionWhoseSealedIndexKeyTheTPMDidNotUnsealIsAWarningSayingWhatToDo() {
        var waiting = CollectionStatus(id: "mail", label: "Mail", isLocked: true, itemCount: 2)
        waiting.lockedSearch = "always"
        waiting.indexKey = "tpm2"
        waiting.searchWaitsForUnlock = true
        var unsealed = waiting
        unsealed.id = "web"
        unsealed.searchWaitsForUnlock = false
        let status = VaultStatus(
            isInitialized: true, store: "file", dataDirectory: "/v", version: "1", collections: [waiting, unsealed])
        let findings = TPMCheck.sealedIndexFindings(status)
        #expect(findings.map(\.mark) == [.warn])
        #expect(findings.first?.summary.contains("index key of collection mail") == true, "\(findings)")
        #expect(findings.first?.next?.contains("puffctl collection set mail --locked-search tpm2") == true)
        #expect(TPMCheck.sealedIndexFindings(nil).isEmpty)
    }

    @Test func aNodeThatOpensOrNoNodeAtAllIsNoProblem() {
        #expect(TPMCheck.findings(TPMFacts(path: Self.node, exists: true)).map(\.mark) == [.ok])
        #expect(
            TPMCheck.findings(TPMFacts(path: Self.node, exists: false))
                == [DoctorFinding(.ok, "no TPM (/dev/tpmrm0 is absent): tpm2 slots cannot be used on this machine")])
    }

    @Test func anotherOpenErrorIsAWarningWithoutTheGroupAdvice() {
        let findings = TPMCheck.findings(TPMFacts(path: Self.node, exists: true, openError: ENODEV))
        #expect(findings.map(\.mark) == [.warn])
        #expect(findings.first?.next?.contains("tss") == false)
    }

    @Test func theProbeOpensTheNodeItIsGiven() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-tpmcheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let node = folder.appendingPathComponent("tpmrm0").path
        #expect(DoctorProbe.tpmFacts(path: node).exists == false)
        #expect(FileManager.default.createFile(atPath: node, contents: nil, attributes: [.posixPermissions: 0o600]))
        let facts = DoctorProbe.tpmFacts(path: node)
        #expect(facts.exists && facts.openError == nil)
        // A folder cannot be opened for writing: the probe reports the errno it got.
        #expect(DoctorProbe.tpmFacts(path: folder.path).openError == EISDIR)
    }
}
