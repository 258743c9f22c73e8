// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// With several items matching, `secret-tool lookup` returns the oldest, every time: across
/// collections, after a restart and after `puffctl compact` (issue 16, "when several match, the
/// oldest wins").
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct LookupOrderTests {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-order-\(UUID().uuidString)").path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func run(_ tool: String, _ arguments: [String], input: String = "", on daemon: TestDaemon) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(tool, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Whether `secret-tool lookup` returns the oldest item's secret; a Bool, so a failure never
    /// prints a secret.
    func findsOldest(on daemon: TestDaemon) async throws -> Bool {
        try await run("/usr/bin/secret-tool", ["lookup", "service", "order-e2e"], on: daemon).output == "oldest"
    }

    @Test func theOldestMatchWinsAcrossCollectionsRestartsAndCompaction() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let first = try await daemon()
        #expect(
            try await run(VaultFlowTests.puffctl, ["init", "--stdin"], input: "order pass\n", on: first).status == 0)
        #expect(
            try await run(
                VaultFlowTests.puffctl, ["collection", "create", "Work", "--stdin"], input: "order pass\n", on: first
            ).status == 0)
        // The oldest lives in Work, which comes after login in the collection list. Created counts
        // seconds, so the stores are a second apart: items of the same second keep collection order.
        let stores = [("Work", "oldest", "1"), ("login", "middle", "2"), ("Work", "newest", "3")]
        var storedBy = Date.distantPast
        for (collection, secret, user) in stores {
            // Ordering, not a guessed sleep: the clock has moved to a later second than the one
            // in which the previous store ended.
            let previous = storedBy.timeIntervalSince1970.rounded(.down)
            #expect(
                await poll(limit: HangGuard.step, every: .milliseconds(20)) {
                    Date().timeIntervalSince1970 >= previous + 1
                })
            let store = try await run(
                "/usr/bin/secret-tool",
                [
                    "store", "--label=\(secret)", "--collection=/org/freedesktop/secrets/collection/\(collection)",
                    "service", "order-e2e", "user", user,
                ], input: secret, on: first)
            #expect(store.status == 0, "\(store.output)")
            storedBy = Date()
        }
        // A replace of the middle one keeps its Created: it stays the middle one.
        #expect(
            try await run(
                "/usr/bin/secret-tool",
                ["store", "--label=middle", "service", "order-e2e", "user", "2"], input: "middle again", on: first
            ).status == 0)
        for _ in 0..<3 { #expect(try await findsOldest(on: first)) }
        _ = await first.terminate()

        let second = try await daemon()
        for collection in ["login", "Work"] {
            #expect(
                try await run(
                    VaultFlowTests.puffctl, ["unlock", collection, "--stdin"], input: "order pass\n", on: second
                )
                .status == 0)
        }
        #expect(try await findsOldest(on: second), "after a restart")
        for collection in ["login", "Work"] {
            #expect(try await run(VaultFlowTests.puffctl, ["compact", collection], on: second).status == 0)
        }
        #expect(try await findsOldest(on: second), "after compaction")
    }
}
