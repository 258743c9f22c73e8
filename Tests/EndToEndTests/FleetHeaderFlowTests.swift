// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Testing

/// A fleet collection's header changed on one machine reaches the other (docs/fleet.md,
/// docs/design/fleet.md §5), end to end: two built puffd sharing a collection through a real
/// `bao server -dev`; `puffctl passwd` on one, `puffctl unlock` on the other; a forged header
/// planted with `hvac` (an independent client) is refused with a logged reason.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetHeaderFlowTests {
    @Test func passwdOnOneMachineIsThePasscodeOnTheOtherAndAPlantedHeaderIsRefused() async throws {
        let bao = try await BaoServer()
        let (first, second, id) = try await FleetFlowTests().pair(bao)
        let path = "--collection=/org/freedesktop/secrets/collection/\(id)"
        let stored = try await first.secretTool(["store", "--label=kept", path, "fleet", "kept"], input: "kept secret")
        #expect(stored.status == 0, "\(stored.output)")
        #expect(try await second.waitForSecret("fleet", "kept") == "kept secret")
        #expect(try await second.puffctl(["lock", id]).status == 0)

        let passwd = try await first.puffctl(["passwd", id, "--stdin"], input: "team pass\nnew team pass\n")
        #expect(passwd.status == 0, "\(passwd.output)")
        let opened = try await second.puffctl(["unlock", id, "--stdin"], input: "new team pass\n")
        #expect(opened.status == 0, "the new passcode opens it on the other machine: \(opened.output)")
        #expect(try await second.secretTool(["lookup", "fleet", "kept"]).output == "kept secret")
        #expect(try await second.puffctl(["lock", id]).status == 0)
        let old = try await second.puffctl(["unlock", id, "--stdin"], input: "team pass\n")
        #expect(old.status != 0, "the old passcode opens it no more: \(old.output)")

        let forged = try await ChildProcess.run(
            BaoServer.python,
            [
                ClientDriver.directory.appendingPathComponent("fleet_header_forge.py").path, bao.address, "secret",
                "puff", "team",
            ],
            environment: ["PATH": "/usr/bin:/bin"], input: bao.rootToken.withUnsafeBytes { Data($0) })
        #expect(forged.status == 0 && forged.output.hasPrefix("ok "), "\(forged.output)")
        let again = try await second.puffctl(["unlock", id, "--stdin"], input: "new team pass\n")
        #expect(again.status == 0, "the planted header is refused and the collection opens: \(again.output)")
        let log = second.puffd.log
        #expect(
            log.contains("header in the shared store was refused") && log.contains("does not authenticate"),
            "puffd logs why")
        let written = try await second.secretTool(["store", "--label=after", path, "fleet", "after"], input: "after")
        #expect(written.status == 0, "\(written.output)")
        #expect(try await first.waitForSecret("fleet", "after") == "after")
    }
}
