// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Synchronization
import Testing

/// `puffctl status` on a fleet collection (docs/fleet.md, "Working with it"): its store, and
/// whether OpenBao answered puffd's last poll, through the built puffd and puffctl against a
/// real `bao server -dev` that goes away and comes back.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetStatusFlowTests {
    /// The fleet collection's record in `puffctl status --json`.
    static func record(_ machine: FleetFlowTests.Machine, _ id: String) async throws -> [String: Any] {
        let status = try await machine.puffctl(["status", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]], "\(status.output)")
        return try #require(collections.first { $0["id"] as? String == id }, "\(status.output)")
    }

    /// `puffctl status`'s text once `condition` holds for it (polled: puffd polls OpenBao every
    /// second, and backs off to 5 s while it is gone); the last text seen when it never does.
    static func status(_ machine: FleetFlowTests.Machine, until condition: @escaping @Sendable (String) -> Bool)
        async throws -> String
    {
        let seen = Mutex("")
        _ = try await poll(limit: HangGuard.step, every: .milliseconds(200)) {
            let text = try await machine.puffctl(["status"]).output
            seen.withLock { $0 = text }
            return condition(text)
        }
        return seen.withLock { $0 }
    }

    @Test func statusSaysAFleetCollectionIsOfflineWhileOpenBaoIsGoneAndOnlineOnceItIsBack() async throws {
        let bao = try await BaoServer()
        let policy = try await bao.policy("puff-fleet", FleetFlowTests.policy)
        let machine = try await FleetFlowTests.Machine(
            "status", bao: bao, token: try await bao.token(policies: [policy]))
        let initialized = try await machine.puffctl(["init", "--stdin"], input: "machine pass\n")
        #expect(initialized.status == 0, "\(initialized.output)")
        let created = try await machine.puffctl(
            ["collection", "create", "team", "--store", "openbao", "--stdin"], input: "team pass\n")
        #expect(created.status == 0, "\(created.output)")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)

        let online = try await Self.status(machine) { $0.contains("\(id): store openbao as team, online (reached ") }
        #expect(online.contains("\(id): store openbao as team, online (reached "), "\(online)")
        // The login collection is this machine's alone: no such line.
        #expect(!online.contains("login: store"), "\(online)")
        let record = try await Self.record(machine, id)
        #expect(record["store"] as? String == "openbao" && record["shared_name"] as? String == "team", "\(record)")
        #expect(record["online"] as? Bool == true && record["offline_reason"] as? String == "", "\(record)")
        let reached = try #require(record["reached_at"] as? Int, "\(record)")
        #expect(reached > 0 && record["checked_at"] as? Int ?? 0 >= reached, "\(record)")
        #expect(try await Self.record(machine, "login")["shared_name"] == nil)

        bao.goOffline()
        let offline = try await Self.status(machine) { $0.contains("\(id): store openbao as team, offline: ") }
        #expect(offline.contains("\(id): store openbao as team, offline: "), "\(offline)")
        #expect(offline.contains(bao.address), "the reason names OpenBao's address: \(offline)")
        #expect(offline.contains("(reached "), "when OpenBao last answered: \(offline)")
        let gone = try await Self.record(machine, id)
        #expect(gone["online"] as? Bool == false, "\(gone)")
        #expect((gone["offline_reason"] as? String)?.contains(bao.address) == true, "\(gone)")
        // When OpenBao last answered is kept while later tries fail.
        let lastAnswer = try #require(gone["reached_at"] as? Int, "\(gone)")
        #expect(lastAnswer >= reached, "\(gone)")
        let times = Mutex((checked: 0, reached: 0))
        let tried = try await poll(limit: HangGuard.step, every: .milliseconds(200)) {
            let later = try await Self.record(machine, id)
            let seen = (checked: later["checked_at"] as? Int ?? 0, reached: later["reached_at"] as? Int ?? 0)
            times.withLock { $0 = seen }
            return seen.checked > lastAnswer
        }
        let seen = times.withLock { $0 }
        #expect(tried && seen.reached == lastAnswer, "a later failed try keeps the last answer's time: \(seen)")

        try bao.goOnline()
        let back = try await Self.status(machine) { $0.contains("\(id): store openbao as team, online (reached ") }
        #expect(back.contains("\(id): store openbao as team, online (reached "), "\(back)")
        #expect(try await Self.record(machine, id)["online"] as? Bool == true)
    }
}
