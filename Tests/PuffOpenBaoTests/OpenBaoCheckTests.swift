// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffStore
import PuffTesting
import Testing

@testable import PuffOpenBao

/// What `puffctl doctor` reports of the OpenBao of `[store.openbao]`: against a real dev server
/// (a good token, a policy without create, an AppRole, the server gone) and, for the clock, the
/// token's time left and the server's state, with the answers given.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoCheckTests {
    /// The policy docs/fleet.md gives a machine, for the whole prefix.
    static let fleetPolicy = """
        path "secret/data/puff/*"     { capabilities = ["create", "read"] }
        path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
        path "transit/encrypt/puff"   { capabilities = ["update"] }
        path "transit/decrypt/puff"   { capabilities = ["update"] }
        """

    func check(_ bao: BaoServer, _ auth: OpenBaoAuth, collections: [String] = [], transitKey: String? = "puff")
        -> OpenBaoCheck
    {
        OpenBaoCheck(
            address: bao.address, auth: .success(auth), mount: "secret", prefix: "puff", transitKey: transitKey,
            collections: collections)
    }

    static func now() -> Int64 { Int64(time(nil)) }

    @Test(.enabled(if: BaoServer.isAvailable))
    func aTokenWhosePolicyAllowsTheFleetPathsPassesEveryCheckAndNoTextHoldsIt() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: "puff")
        let token = try await bao.token(policies: [try await bao.policy("fleet", Self.fleetPolicy)])
        let checks = await check(bao, .token(token)).run(now: Self.now)
        #expect(checks.map(\.name) == ["reachable", "authenticated", "policy", "clock"])
        #expect(checks.allSatisfy { $0.outcome == .ok }, "\(checks)")
        #expect(checks[0].summary == "OpenBao 2.7.2 at \(bao.address) answers: initialized, unsealed, active")
        // A dev server's tokens live 768 h.
        #expect(checks[1].summary.contains(" days more (policies: default, fleet)"), "\(checks[1])")
        #expect(checks[2].details.contains("update on transit/decrypt/puff (unlock)"), "\(checks[2])")
        let text = checks.map { "\($0.summary) \($0.details) \($0.next ?? "")" }.joined()
        #expect(!text.contains(String(decoding: token.unprotectedArray(), as: UTF8.self)))
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func aPolicyWithoutCreateOnThePrefixFailsNamingThePathAndTheLinesToAdd() async throws {
        let bao = try await BaoServer()
        let readOnly = try await bao.policy(
            "read-only",
            """
            path "secret/data/puff/*"     { capabilities = ["read"] }
            path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
            """)
        let checks = await check(bao, .token(try await bao.token(policies: [readOnly])), transitKey: nil)
            .run(now: Self.now)
        let policy = try #require(checks.first { $0.name == "policy" })
        #expect(policy.outcome == .fail)
        #expect(policy.summary == "the token's policy lacks create on secret/data/puff/*")
        #expect(policy.next?.contains(#"path "secret/data/puff/*" { capabilities = ["create", "read"] }"#) == true)
        #expect(checks.first { $0.name == "authenticated" }?.outcome == .ok, "the token itself is fine")
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func aPolicyNamingOneCollectionPassesForThatCollectionOnly() async throws {
        let bao = try await BaoServer()
        let team = try await bao.policy(
            "team",
            """
            path "secret/data/puff/team/*"     { capabilities = ["create", "read"] }
            path "secret/metadata/puff/team/*" { capabilities = ["read", "list"] }
            """)
        let token = try await bao.token(policies: [team])
        let forTeam = await check(bao, .token(token), collections: ["team"], transitKey: nil).run(now: Self.now)
        #expect(forTeam.first { $0.name == "policy" }?.outcome == .ok, "\(forTeam)")
        let forOps = await check(bao, .token(token), collections: ["team", "ops"], transitKey: nil).run(now: Self.now)
        let policy = try #require(forOps.first { $0.name == "policy" })
        #expect(policy.summary == "the token's policy lacks create, read on secret/data/puff/ops/* (and 1 more path)")
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func anAppRoleLoginIsTriedAndAWrongSecretIDFailsAuthenticatedAndSkipsThePolicy() async throws {
        let bao = try await BaoServer()
        try await bao.enableTransit(key: "puff")
        let fleet = try await bao.policy("fleet", Self.fleetPolicy)
        let role = try await bao.appRole("machine", policies: [fleet])
        let good = await check(bao, .appRole(roleID: role.roleID, secretID: role.secretID)).run(now: Self.now)
        #expect(good.allSatisfy { $0.outcome == .ok }, "\(good)")
        #expect(good[1].summary.hasPrefix("the AppRole login works"), "\(good[1])")

        let wrong = SecureBytes(unwipedCopyOf: Array("00000000-0000-0000-0000-000000000000".utf8))
        let bad = await check(bao, .appRole(roleID: role.roleID, secretID: wrong)).run(now: Self.now)
        #expect(bad.map(\.name) == ["reachable", "authenticated", "clock"])
        #expect(bad[1].outcome == .fail)
        #expect(bad[1].summary.contains("refused the AppRole login (auth/approle/login)"), "\(bad[1])")
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func credentialsTheSettingsCannotGiveFailAuthenticatedWithTheirReason() async throws {
        let bao = try await BaoServer()
        let why = "the token file /nowhere/token cannot be opened: No such file or directory"
        let checks = await OpenBaoCheck(
            address: bao.address, auth: .failure(.refused(why)), mount: "secret", prefix: "puff"
        )
        .run(now: Self.now)
        #expect(checks.map(\.name) == ["reachable", "authenticated", "clock"])
        #expect(checks[0].outcome == .ok)
        #expect(
            checks[1]
                == StoreCheck(
                    "authenticated", .fail, why,
                    next: "fix the credentials in [store.openbao] (docs/fleet.md), then restart puffd"))
    }

    @Test(.enabled(if: BaoServer.isAvailable))
    func anUnreachableServerFailsReachableNamingTheAddressAndNothingElseIsAsked() async throws {
        let bao = try await BaoServer()
        bao.goOffline()
        let checks = await check(bao, .token(bao.rootToken)).run(now: Self.now)
        #expect(checks.count == 1, "\(checks)")
        #expect(checks[0].name == "reachable" && checks[0].outcome == .fail)
        #expect(checks[0].summary.hasPrefix("OpenBao at \(bao.address) is unreachable: "), "\(checks[0])")
    }

    @Test func theClocksAgreeWithin30SecondsWarnBeyondAndFailBeyondFiveMinutes() {
        let server: Int64 = 1_800_000_000
        #expect(OpenBaoCheck.clock(server: server, local: server).summary.hasSuffix("(the same second)"))
        #expect(OpenBaoCheck.clock(server: server, local: server + 30).outcome == .ok)
        #expect(OpenBaoCheck.clock(server: server, local: server - 30).outcome == .ok)
        let ahead = OpenBaoCheck.clock(server: server, local: server + 31)
        #expect(ahead.outcome == .warn && ahead.summary == "this machine's clock is 31 s ahead of OpenBao's")
        #expect(OpenBaoCheck.clock(server: server, local: server + 300).outcome == .warn)
        let behind = OpenBaoCheck.clock(server: server, local: server - 301)
        #expect(behind.outcome == .fail)
        #expect(behind.summary.hasPrefix("this machine's clock is 5 min 1 s behind OpenBao's"), "\(behind)")
        #expect(OpenBaoCheck.clock(server: nil, local: server).outcome == .warn)
    }

    @Test func aTokenWithADayOrLessLeftWarnsAndOneThatDoesNotExpireIsFine() {
        func info(_ ttl: Int64) -> OpenBaoTokenInfo {
            OpenBaoTokenInfo(displayName: "t", policies: ["fleet"], ttl: ttl)
        }
        let soon = OpenBaoCheck.token(info(3 * 3600 + 20 * 60), appRole: false)
        #expect(soon.outcome == .warn && soon.summary == "puffd's token expires in 3 h 20 min (policies: fleet)")
        #expect(OpenBaoCheck.token(info(86_400), appRole: false).outcome == .ok)
        #expect(OpenBaoCheck.token(info(0), appRole: false).summary.contains("does not expire"))
        #expect(OpenBaoCheck.token(info(60), appRole: true).outcome == .ok, "an AppRole logs in again by itself")
    }

    @Test func aSealedServerFailsAndAStandbyWarns() {
        let sealed = OpenBaoHealth(initialized: true, sealed: true, standby: false, version: "2.7.2", serverTime: nil)
        #expect(OpenBaoCheck.reachable(sealed, address: "https://bao:8200").outcome == .fail)
        let fresh = OpenBaoHealth(initialized: false, sealed: true, standby: false, version: "", serverTime: nil)
        #expect(OpenBaoCheck.reachable(fresh, address: "https://bao:8200").summary.hasSuffix("is not initialized"))
        let standby = OpenBaoHealth(initialized: true, sealed: false, standby: true, version: "", serverTime: nil)
        #expect(OpenBaoCheck.reachable(standby, address: "https://bao:8200").outcome == .warn)
    }
}
