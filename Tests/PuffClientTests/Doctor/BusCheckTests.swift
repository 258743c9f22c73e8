// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PuffClient

/// Check 1: the session bus, and the advice for SSH, WSL and containers when there is none.
struct BusCheckTests {
    let desktop = HostFacts(
        environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "XDG_RUNTIME_DIR": "/run/user/1000"])

    @Test func aSetAddressThatConnectsIsAllOK() {
        let findings = BusCheck.findings(host: desktop, address: nil, connectError: nil)
        #expect(findings.map(\.mark) == [.ok, .ok])
        #expect(findings[0].summary == "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus")
    }

    @Test func noAddressAndNoUserBusSocketFailsAndSuggestsAPrivateBus() {
        let host = HostFacts(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        let findings = BusCheck.findings(host: host, address: nil, connectError: "Unable to autolaunch")
        #expect(findings.map(\.mark) == [.fail, .fail])
        #expect(findings[0].next?.contains("dbus-run-session -- $SHELL") == true)
        #expect(findings[1].summary == "cannot connect to the bus: Unable to autolaunch")
        #expect(findings[1].next == nil, "the step is given once")
    }

    @Test func noAddressWithTheUserBusSocketWarnsAndGivesTheExportLine() {
        let host = HostFacts(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], runtimeBusSocketExists: true)
        let findings = BusCheck.findings(host: host, address: nil, connectError: nil)
        #expect(findings.map(\.mark) == [.warn, .ok])
        #expect(findings[0].next == "export DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus")
    }

    @Test func withoutXDGRuntimeDirTheUserBusIsLookedForUnderRunUser() {
        let host = HostFacts(environment: [:], runtimeBusSocketExists: true, userID: 1234)
        #expect(BusCheck.busStep(host) == "export DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1234/bus")
    }

    @Test func anAddressThatDoesNotConnectFailsWithTheSameAdvice() {
        let findings = BusCheck.findings(host: desktop, address: nil, connectError: "No such file or directory")
        #expect(findings.map(\.mark) == [.ok, .fail])
        #expect(findings[1].next == BusCheck.busStep(desktop))
        #expect(findings[1].next?.contains("dbus-run-session") == true)
    }

    @Test func anSSHLoginWithoutABusIsToldThatSSHForwardsNone() throws {
        let host = HostFacts(environment: ["SSH_CONNECTION": "10.0.0.2 5555 10.0.0.1 22"], userID: 1000)
        let findings = BusCheck.findings(host: host, address: nil, connectError: "Unable to autolaunch")
        let ssh = try #require(findings.first { $0.summary.hasPrefix("this is an SSH session") })
        #expect(ssh.mark == .warn)
        #expect(ssh.summary.contains("SSH does not forward a session bus"))
        #expect(ssh.next?.contains("loginctl enable-linger") == true)
        #expect(ssh.next?.contains("unix:path=/run/user/1000/bus") == true)
    }

    @Test func wslIsRecognisedByItsKernelAndToldToEnableSystemd() throws {
        let host = HostFacts(
            environment: [:], kernelVersion: "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1c602f52c2e4)")
        let findings = BusCheck.findings(host: host, address: nil, connectError: "no bus")
        let wsl = try #require(findings.first { $0.summary.hasPrefix("this is WSL") })
        #expect(wsl.next?.contains("systemd=true") == true)
        #expect(wsl.next?.contains("/etc/wsl.conf") == true)
    }

    @Test func aContainerIsNamedByItsMarkerFileAndIsOnlyANoteWhenTheBusWorks() {
        let host = HostFacts(
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/bus"], containerMarkers: ["/run/.containerenv"])
        let connected = BusCheck.findings(host: host, address: nil, connectError: nil)
        #expect(connected.map(\.mark) == [.ok, .ok, .ok])
        #expect(connected[1].summary == "this is a container (/run/.containerenv)")
        #expect(connected[1].next == nil)
        let broken = BusCheck.findings(host: host, address: nil, connectError: "refused")
        #expect(broken[1].mark == .warn)
        #expect(broken[1].next?.contains("dbus-run-session") == true)
    }

    @Test func anAddressOptionIsReportedAsSuchAndNoContextIsClaimedOnAPlainDesktop() {
        let findings = BusCheck.findings(host: desktop, address: "unix:path=/tmp/x", connectError: "refused")
        #expect(findings[0].summary == "bus address given with --address: unix:path=/tmp/x")
        #expect(findings[1].next == "check the address given with --address")
        #expect(findings.count == 2)
    }
}
