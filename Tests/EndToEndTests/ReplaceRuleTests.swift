// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// `secret-tool store` replaces only the item with the identical attribute set, keeping its path
/// and `Created`; a superset is a second item (issue 16, item 2).
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct ReplaceRuleTests {
    func store(_ attributes: [String], _ secret: String, on daemon: TestDaemon) async throws {
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=replace e2e"] + attributes,
            environment: daemon.clientEnvironment, input: Data(secret.utf8))
        #expect(store.status == 0, "\(store.output)")
    }

    /// The paths `secret-tool search --all` prints for service=replace-e2e, in its order.
    func paths(on daemon: TestDaemon) async throws -> [String] {
        let search = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["search", "--all", "service", "replace-e2e"],
            environment: daemon.clientEnvironment)
        return search.output.split(separator: "\n").filter { $0.hasPrefix("[/") }.map {
            String($0.dropFirst().dropLast())
        }
    }

    @Test func theIdenticalSetIsReplacedInPlaceAndASupersetIsASecondItem() async throws {
        let daemon = try await TestDaemon()
        try await store(["service", "replace-e2e", "user", "alice"], "first", on: daemon)
        let first = try await paths(on: daemon)
        #expect(first.count == 1)
        try await store(["user", "alice", "service", "replace-e2e"], "second", on: daemon)
        #expect(try await paths(on: daemon) == first, "the same set, in another order: the same item")
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "replace-e2e"], environment: daemon.clientEnvironment)
        // A Bool, so a failure never prints a secret.
        let replaced = lookup.output == "second"
        #expect(replaced, "the lookup returns the replacing secret")
        try await store(["service", "replace-e2e", "user", "alice", "port", "22"], "third", on: daemon)
        let both = try await paths(on: daemon)
        #expect(both.count == 2 && both.first == first.first, "a superset is a new item; the first stays first")
    }
}
