// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffOpenBao
import PuffStore
import PuffTesting
import Testing

/// ``OpenBaoFleetLog`` on a real `bao server -dev`: the KV layout of docs/design/fleet.md §2, its
/// check-and-set rules, and what an independent client (Python's hvac) sees there.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoFleetLogTests {
    let space = SpaceID.random()

    /// What `body` threw; nil when it returned.
    static func failure(_ body: () async throws(StoreError) -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func aHeaderAndEntriesWrittenReadBackUnderTheLayoutsPaths() async throws {
        let bao = try await BaoServer()
        let log = OpenBaoFleetLog(client: try bao.client())
        #expect(try await log.header(of: "team") == nil)
        #expect(try await log.replaceHeader([1, 2, 3], of: "team", expecting: 0, space: space) == 1)
        try await log.createEntry(1, [4, 5], of: "team", space: space)
        try await log.createEntry(2, [], of: "team", space: space)
        #expect(try await log.header(of: "team").map { [$0.bytes, [UInt8($0.version)]] } == [[1, 2, 3], [1]])
        #expect(try await log.entry(1, of: "team") == [4, 5])
        #expect(try await log.entry(2, of: "team") == [])
        #expect(try await log.entry(3, of: "team") == nil)
        #expect(try await log.collections() == ["team"])
        // The paths and fields themselves, read with the plain KV client.
        let kv = try bao.client()
        #expect(try await kv.list("puff/team/log", mount: "secret") == ["0000000000000001", "0000000000000002"])
        #expect(try await kv.read("puff/team/header", mount: "secret")?.fields == ["header": "AQID"])
    }

    @Test func twoWritersCreatingTheSameEntryAtOnceGetOneSuccessAndOneStaleGeneration() async throws {
        let bao = try await BaoServer()
        let first = OpenBaoFleetLog(client: try bao.client())
        let second = OpenBaoFleetLog(client: try bao.client())
        try await first.createEntry(1, [0], of: "team", space: space)
        let space = self.space
        async let one = Self.failure { () async throws(StoreError) in
            try await first.createEntry(2, [1], of: "team", space: space)
        }
        async let other = Self.failure { () async throws(StoreError) in
            try await second.createEntry(2, [2], of: "team", space: space)
        }
        let outcomes = await [one, other]
        #expect(outcomes.compactMap { $0 } == [.staleGeneration(space, expected: 1, current: 2)])
        // The entry holds the winner's bytes.
        let winner: [UInt8] = outcomes[0] == nil ? [1] : [2]
        #expect(try await first.entry(2, of: "team") == winner)
    }

    @Test func aHeaderReplacedFromAStaleVersionIsRefusedWithTheCurrentOne() async throws {
        let bao = try await BaoServer()
        let log = OpenBaoFleetLog(client: try bao.client(), mount: "secret", prefix: "fleet/puff")
        #expect(try await log.replaceHeader([1], of: "team", expecting: 0, space: space) == 1)
        let twice = await #expect(throws: StoreError.self) {
            try await log.replaceHeader([9], of: "team", expecting: 0, space: space)
        }
        #expect(twice == .staleGeneration(space, expected: 0, current: 1))
        #expect(try await log.replaceHeader([2], of: "team", expecting: 1, space: space) == 2)
        let stale = await #expect(throws: StoreError.self) {
            try await log.replaceHeader([3], of: "team", expecting: 1, space: space)
        }
        #expect(stale == .staleGeneration(space, expected: 1, current: 2))
        #expect(try await log.header(of: "team")?.bytes == [2])
    }

    @Test func aMachineWhosePolicyNamesOneCollectionIsRefusedTheOther() async throws {
        let bao = try await BaoServer()
        let owner = OpenBaoFleetLog(client: try bao.client())
        try await owner.createEntry(1, [1], of: "team", space: space)
        try await owner.createEntry(1, [2], of: "other", space: space)
        let rules = #"path "secret/data/puff/team/*" { capabilities = ["create", "read"] }"#
        let machine = OpenBaoFleetLog(
            client: try bao.client(token: try await bao.token(policies: [try await bao.policy("team", rules)])))
        #expect(try await machine.entry(1, of: "team") == [1])
        let error = await #expect(throws: StoreError.self) { try await machine.entry(1, of: "other") }
        #expect(
            error
                == .unavailable(
                    "OpenBao at \(bao.address) refused access to secret/data/puff/other/log/0000000000000001 (permission denied)"
                ))
    }

    @Test func aNameThatIsNotOnePathSegmentIsRefused() async throws {
        let bao = try await BaoServer()
        let log = OpenBaoFleetLog(client: try bao.client())
        for name in ["a/b", "..", ".", ""] {
            let error = await #expect(throws: StoreError.self) { try await log.entry(1, of: name) }
            #expect(error == .unavailable("\(name.debugDescription) cannot be a fleet collection's name in OpenBao"))
        }
    }

    @Test func anEntryNotWrittenByPuffIsDamagedNamingItsPath() async throws {
        let bao = try await BaoServer()
        _ = try await bao.client().write(
            "puff/team/log/0000000000000001", mount: "secret", fields: [("entry", "not base64!")], cas: 0)
        let log = OpenBaoFleetLog(client: try bao.client())
        let error = await #expect(throws: StoreError.self) { try await log.entry(1, of: "team") }
        #expect(
            error
                == .damaged(
                    file: "\(bao.address) secret/puff/team/log/0000000000000001", offset: 0,
                    reason: "no base64 field entry in version 1"))
    }

    @Test func hvacReadsAnEntryAsTheBase64OfTheBytesGivenAndNothingElse() async throws {
        let bao = try await BaoServer()
        let log = OpenBaoFleetLog(client: try bao.client())
        // What a sealed record stands in for: bytes that would betray a plaintext label if written as text.
        let bytes = Array("label=Mail password secret=hunter2".utf8) + [0, 255, 7]
        try await log.createEntry(1, bytes, of: "team", space: space)
        let script = """
            import hvac, json, sys
            client = hvac.Client(url=sys.argv[1], token=sys.stdin.readline().strip())
            answer = client.secrets.kv.v2.read_secret_version(
                path=sys.argv[2], mount_point="secret", raise_on_deleted_version=True)
            print(json.dumps(answer["data"]["data"]))
            """
        let result = try await ChildProcess.run(
            BaoServer.python, ["-c", script, bao.address, "puff/team/log/0000000000000001"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"],
            input: Data(bao.rootToken.unprotectedArray() + [10]))
        #expect(result.status == 0, "\(result.output)")
        let fields = try JSONSerialization.jsonObject(with: result.bytes) as? [String: String]
        #expect(fields == ["entry": Base64.encode(bytes)])
        #expect(!result.output.contains("hunter2") && !result.output.contains("Mail password"))
    }
}
