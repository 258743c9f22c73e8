// SPDX-License-Identifier: Apache-2.0
import PuffOpenBao
import PuffTesting
import Testing

/// KV v2 through ``OpenBaoClient`` against a real `bao server -dev`.
@Suite(.enabled(if: BaoServer.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct OpenBaoKVTests {
    @Test func aWrittenSecretReadsBackWithItsVersionAndIsListedWithItsMetadata() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        let first = try await client.write("team/app/one", mount: "secret", fields: [("entry", "AAEC")], cas: nil)
        let second = try await client.write(
            "team/app/one", mount: "secret", fields: [("entry", "AwQF"), ("other", "x")], cas: nil)
        #expect((first, second) == (1, 2))
        #expect(
            try await client.read("team/app/one", mount: "secret")
                == KVSecret(fields: ["entry": "AwQF", "other": "x"], version: 2))
        _ = try await client.write("team/app/two", mount: "secret", fields: [("entry", "")], cas: 0)
        _ = try await client.write("team/app/sub/three", mount: "secret", fields: [("entry", "")], cas: 0)
        #expect(try await client.list("team/app", mount: "secret").sorted() == ["one", "sub/", "two"])
        let metadata = try #require(try await client.metadata("team/app/one", mount: "secret"))
        // OpenBao says 0 for the oldest version until old ones are trimmed (max_versions).
        #expect((metadata.currentVersion, metadata.oldestVersion) == (2, 0))
        #expect(!metadata.createdTime.isEmpty)
    }

    @Test func manyRequestsAtOnceFromOneClientEachGetTheirOwnAnswer() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        // More at once than the pool keeps handles (4), so handles are made, shared out and freed.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    _ = try await client.write("many/\(index)", mount: "secret", fields: [("n", "\(index)")], cas: 0)
                }
            }
            try await group.waitForAll()
        }
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<24 {
                group.addTask { (index, try await client.read("many/\(index)", mount: "secret")?.fields["n"]) }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers == Dictionary(uniqueKeysWithValues: (0..<24).map { ($0, "\($0)") }))
    }

    @Test func aPathNeverWrittenReadsAsNothingAndAnEmptyFolderListsNothing() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        #expect(try await client.read("nothing/here", mount: "secret") == nil)
        #expect(try await client.metadata("nothing/here", mount: "secret") == nil)
        #expect(try await client.list("nothing", mount: "secret") == [])
    }

    @Test func creatingWithCheckAndSetZeroTwiceRefusesTheSecondAndKeepsTheFirst() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        #expect(try await client.write("log/1", mount: "secret", fields: [("entry", "Zmlyc3Q=")], cas: 0) == 1)
        let error = await #expect(throws: OpenBaoError.self) {
            try await client.write("log/1", mount: "secret", fields: [("entry", "c2Vjb25k")], cas: 0)
        }
        #expect(error == .casMismatch(path: "secret/data/log/1"))
        #expect(try await client.read("log/1", mount: "secret") == KVSecret(fields: ["entry": "Zmlyc3Q="], version: 1))
        // Replacing goes with the version read, and only with it.
        #expect(try await client.write("log/1", mount: "secret", fields: [("entry", "AA==")], cas: 1) == 2)
        let stale = await #expect(throws: OpenBaoError.self) {
            try await client.write("log/1", mount: "secret", fields: [("entry", "AQ==")], cas: 1)
        }
        #expect(stale == .casMismatch(path: "secret/data/log/1"))
    }

    @Test func aPathWithDotDotOrAnEmptySegmentIsRefusedBeforeAnythingIsSent() async throws {
        let bao = try await BaoServer()
        let client = try bao.client()
        for path in ["a/../../sys/health", "a//b", "./a", "a/\n"] {
            let error = await #expect(throws: OpenBaoError.self) { try await client.read(path, mount: "secret") }
            #expect(error == .refused("\("secret/data/\(path)".debugDescription) is not a usable OpenBao path"))
        }
        // Other characters are escaped, not refused: a name with a space or '%' is one segment.
        _ = try await client.write("a b%2F", mount: "secret", fields: [("entry", "AA==")], cas: 0)
        #expect(try await client.read("a b%2F", mount: "secret")?.fields == ["entry": "AA=="])
        #expect(try await client.list("", mount: "secret") == ["a b%2F"])
    }

    @Test func aTokenWithoutThePolicyIsDeniedNamingThePath() async throws {
        let bao = try await BaoServer()
        let name = try await bao.policy("read-only", #"path "secret/data/*" { capabilities = ["read"] }"#)
        let reader = try bao.client(token: try await bao.token(policies: [name]))
        _ = try await bao.client().write("shared/x", mount: "secret", fields: [("entry", "AA==")], cas: 0)
        #expect(try await reader.read("shared/x", mount: "secret")?.fields == ["entry": "AA=="])
        let error = await #expect(throws: OpenBaoError.self) {
            try await reader.write("shared/y", mount: "secret", fields: [("entry", "AA==")], cas: 0)
        }
        #expect(error == .denied(path: "secret/data/shared/y"))
    }
}
