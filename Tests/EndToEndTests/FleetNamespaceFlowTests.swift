// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffOpenBao
import PuffTesting
import Testing

/// `[store.openbao] namespace` end to end: two puffd whose settings name an OpenBao namespace
/// share a collection kept in that namespace's mount, and the root namespace's mount of the same
/// name holds nothing of it.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetNamespaceFlowTests {
    @Test func twoMachinesInANamespaceShareACollectionTheRootNamespaceDoesNotHold() async throws {
        let bao = try await BaoServer()
        try await bao.makeNamespace("team1")
        let machines = [
            try await FleetFlowTests.Machine("ns-a", bao: bao, token: bao.rootToken, settings: "namespace = \"team1\""),
            try await FleetFlowTests.Machine("ns-b", bao: bao, token: bao.rootToken, settings: "namespace = \"team1\""),
        ]
        for machine in machines {
            let initialize = try await machine.puffctl(["init", "--stdin"], input: "machine pass\n")
            #expect(initialize.status == 0, "\(initialize.output)")
        }
        let created = try await machines[0].puffctl(
            ["collection", "create", "team", "--store", "openbao", "--stdin"], input: "team pass\n")
        try #require(created.status == 0, "\(created.output)")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let attached = try await machines[1].puffctl(
            ["collection", "attach", "team", "--store", "openbao", "--stdin"], input: "team pass\n")
        try #require(attached.status == 0, "\(attached.output)")

        let stored = try await machines[0].secretTool(
            ["store", "--label=in team1", "--collection=/org/freedesktop/secrets/collection/\(id)", "ns", "1"],
            input: "namespaced secret")
        #expect(stored.status == 0, "\(stored.output)")
        #expect(try await machines[1].waitForSecret("ns", "1") == "namespaced secret")

        #expect(try await bao.client(namespace: "team1").read("puff/team/header", mount: "secret") != nil)
        #expect(try await bao.client().read("puff/team/header", mount: "secret") == nil)
        #expect(try await bao.client().list("puff", mount: "secret") == [])

        let doctor = try await machines[0].puffctl(["doctor"])
        // sys/health is asked in the root namespace, the only one that answers it.
        #expect(doctor.output.contains("OK    reachable"), "\(doctor.output)")
        #expect(doctor.output.contains("OK    authenticated"), "\(doctor.output)")
    }
}
