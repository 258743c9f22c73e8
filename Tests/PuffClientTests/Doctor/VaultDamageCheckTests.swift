// SPDX-License-Identifier: Apache-2.0
import PuffStore
import Testing

@testable import PuffClient

/// Check 5's findings from puffd's `Status` and the files' own check (issue 24 item 20).
struct VaultDamageCheckTests {
    let journal = "/v/0123456789abcdef0123456789abcdef.journal"

    @Test func aWholeVaultIsOneOkLine() {
        let findings = VaultDamageCheck.findings(status: nil, files: [])
        #expect(findings == [DoctorFinding(.ok, "every vault file is whole: checksums match, nothing was cut")])
    }

    @Test func whatPuffdReportsFailsAndAFileItNamesIsNotReportedTwice() {
        var status = VaultStatus(
            isInitialized: true, store: "file", dataDirectory: "/v", version: "",
            collections: [
                CollectionStatus(
                    id: "login", label: "", isLocked: true, itemCount: 0,
                    damage: "\(journal) is damaged at offset 16: record checksum does not match")
            ])
        status.problems = ["/v/catalog is damaged at offset 0: a FIFO, not a regular file: refused"]
        let files = [
            VaultFileCheck.Finding(kind: .damaged, file: journal, offset: 16, what: "record checksum does not match"),
            VaultFileCheck.Finding(
                kind: .torn, file: "/v/other.journal", offset: 40, what: "ends in a torn append of 5 bytes"),
        ]
        let findings = VaultDamageCheck.findings(status: status, files: files)
        #expect(
            findings.map(\.summary) == [
                "collection login is damaged: \(journal) is damaged at offset 16: record checksum does not match",
                "/v/catalog is damaged at offset 0: a FIFO, not a regular file: refused",
                "/v/other.journal ends in a torn append of 5 bytes at offset 40",
            ])
        #expect(findings.map(\.mark) == [.fail, .fail, .warn])
    }
}
