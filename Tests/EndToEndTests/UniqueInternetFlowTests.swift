// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `[items] unique_internet` in puffd.toml, on and off, with `secret-tool`: two internet
/// passwords for the same server, user, protocol and port but another path are one item with the
/// rule on (the first path kept) and two with it off. ReplaceRuleTests covers the default rule.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct UniqueInternetFlowTests {
    /// A daemon reading a configuration file that sets `unique_internet`.
    func daemon(uniqueInternet: Bool) async throws -> TestDaemon {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("puffd-\(UUID().uuidString).toml")
        try Data("[items]\nunique_internet = \(uniqueInternet)\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await TestDaemon(arguments: ["--config", file.path])
    }

    func secretTool(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            "/usr/bin/secret-tool", arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// Stores both paths of `https://alice@unique.example` and returns the item paths
    /// `secret-tool search --all` finds for the server, in its order.
    func storeTwoPaths(on daemon: TestDaemon) async throws -> [String] {
        for (object, secret) in [("one.git", "unique-first-5a"), ("two.git", "unique-second-6b")] {
            let store = try await secretTool(
                daemon,
                [
                    "store", "--label=\(object)", "protocol", "https", "server", "unique.example", "user", "alice",
                    "object", object,
                ],
                input: secret)
            #expect(store.status == 0)
        }
        let search = try await secretTool(daemon, ["search", "--all", "server", "unique.example"])
        return search.output.split(separator: "\n").filter { $0.hasPrefix("[/") }.map {
            String($0.dropFirst().dropLast())
        }
    }

    @Test func withTheRuleOnTheSecondStoreReplacesTheFirstItemInPlace() async throws {
        let daemon = try await daemon(uniqueInternet: true)
        let paths = try await storeTwoPaths(on: daemon)
        #expect(paths.count == 1)
        let lookup = try await secretTool(daemon, ["lookup", "server", "unique.example"])
        let second = lookup.output == "unique-second-6b"
        #expect(second, "the one item holds the second secret")
        let listing = try await TypedListing(of: daemon)
        // The first store's item: the path of the first item of login.
        #expect(listing.entries.map(\.path) == ["/org/freedesktop/secrets/collection/login/1"])
        #expect(try listing.entry(["server": "unique.example"]).attributes["object"] == "two.git")
    }

    @Test func withTheRuleOffBothStoresAreItems() async throws {
        let daemon = try await daemon(uniqueInternet: false)
        let paths = try await storeTwoPaths(on: daemon)
        #expect(paths.count == 2)
        let listing = try await TypedListing(of: daemon)
        let kinds = listing.entries.map(\.kind)
        #expect(kinds == ["internet", "internet"])
    }
}
