// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// Check 2: who owns org.freedesktop.secrets, named by executable, and whether it is puffd.
struct OwnerCheckTests {
    static let name = "org.freedesktop.secrets"
    static let status = VaultStatus(
        isInitialized: true, store: "file", dataDirectory: "/home/me/.local/share/puff", version: "0.2",
        prompter: "agent", collections: [])

    @Test func anotherProcessOwningTheNameFailsNamingItsExecutableAndPid() {
        let owner = OwnerFacts(
            busName: Self.name, uniqueName: ":1.7", processID: 4242, executable: "/usr/bin/python3.11",
            answer: .notPuffd)
        let findings = OwnerCheck.findings(owner: owner, activated: .puff)
        #expect(findings.map(\.mark) == [.fail])
        #expect(findings[0].summary == "org.freedesktop.secrets is owned by /usr/bin/python3.11 (pid 4242), not puffd")
        #expect(findings[0].next == "stop the process that owns the name (`kill 4242`); then start puffd")
    }

    @Test func gnomeKeyringOwningTheNameIsNamedAndToldHowToStayStopped() {
        let owner = OwnerFacts(
            busName: Self.name, uniqueName: ":1.3", processID: 900, executable: "/usr/bin/gnome-keyring-daemon")
        let finding = OwnerCheck.findings(owner: owner, activated: nil)[0]
        #expect(finding.summary.hasSuffix(", gnome-keyring, not puffd"))
        #expect(finding.next?.contains("systemctl --user mask --now gnome-keyring-daemon.service") == true)
        #expect(finding.next?.contains("kill") == false)
    }

    @Test func puffdOwningTheNameIsOKWithItsVersionAndExecutable() {
        let owner = OwnerFacts(
            busName: Self.name, uniqueName: ":1.2", processID: 77, executable: "/usr/libexec/puff/puffd",
            answer: .puffd(Self.status))
        let findings = OwnerCheck.findings(owner: owner, activated: .gnomeKeyring)
        #expect(
            findings == [DoctorFinding(.ok, "puffd 0.2 owns org.freedesktop.secrets: /usr/libexec/puff/puffd (pid 77)")]
        )
    }

    @Test func nobodyOwningTheNameIsFineOnlyWhenTheBusWouldStartPuffd() {
        let nobody = OwnerFacts(busName: Self.name, uniqueName: nil)
        #expect(OwnerCheck.findings(owner: nobody, activated: .puff).map(\.mark) == [.ok])
        let keyring = OwnerCheck.findings(owner: nobody, activated: .gnomeKeyring)
        #expect(keyring.map(\.mark) == [.fail])
        #expect(keyring[0].summary.contains("first use would start gnome-keyring"))
        #expect(OwnerCheck.findings(owner: nobody, activated: nil).map(\.mark) == [.fail])
    }

    @Test func anOwnerThatCannotBeAskedIsAWarningNotAVerdict() {
        let owner = OwnerFacts(
            busName: Self.name, uniqueName: ":1.9", processID: 5, executable: nil,
            answer: .unknown("puffd refused the call: run puffctl as the user puffd runs as"))
        let finding = OwnerCheck.findings(owner: owner, activated: .puff)[0]
        #expect(finding.mark == .warn)
        #expect(finding.summary.contains("an unreadable executable (pid 5, another user's?)"))
    }
}

/// Check 5 and the printed report.
struct PrompterCheckAndReportTests {
    @Test func thePrompterThatWouldAnswerIsReportedAndNoneIsAWarning() {
        var status = OwnerCheckTests.status
        #expect(PrompterCheck.findings(status: status).map(\.mark) == [.ok])
        #expect(PrompterCheck.findings(status: status)[0].summary.contains("puffctl agent"))
        status.prompter = "pinentry"
        #expect(PrompterCheck.findings(status: status)[0].summary.hasPrefix("pinentry answers"))
        status.prompter = "none"
        let none = PrompterCheck.findings(status: status)[0]
        #expect(none.mark == .warn)
        #expect(none.next?.contains("puffctl unlock") == true)
        status.prompter = nil
        #expect(PrompterCheck.findings(status: status).map(\.mark) == [.warn])
        #expect(PrompterCheck.findings(status: nil).map(\.mark) == [.warn])
    }

    @Test func theReportPrintsMarksDetailsAndNextStepsAndCountsFailures() {
        let report = DoctorReport([
            DoctorSection("Bus", [DoctorFinding(.ok, "connected to the bus")]),
            DoctorSection(
                "Provider",
                [
                    DoctorFinding(.fail, "owned by python3", details: ["a detail"], next: "stop it\n  line two"),
                    DoctorFinding(.warn, "hm"),
                ]),
        ])
        #expect(report.failures == 1)
        #expect(
            report.text == """
                Bus
                  OK    connected to the bus

                Provider
                  FAIL  owned by python3
                        a detail
                        next: stop it
                            line two
                  WARN  hm
                """)
        #expect(DoctorReport([DoctorSection("Bus", [DoctorFinding(.warn, "w")])]).failures == 0)
    }

    @Test func failuresExitWithStatusOneAndAMessagePointingAtTheSteps() {
        #expect(ClientError.checksFailed(2).exitStatus == .usage)
        #expect(ExitStatus.usage.rawValue == 1)
        #expect(ClientError.checksFailed(2).message == "doctor found 2 problems: see the next steps above")
        #expect(ClientError.checksFailed(1).message == "doctor found 1 problem: see the next steps above")
    }
}
