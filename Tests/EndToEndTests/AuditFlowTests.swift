// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The audit log with the built `puffd`, `puffctl` and `secret-tool` on a private bus and a file
/// vault: a store and a lookup show up with secret-tool's executable, never with the secret.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct AuditFlowTests {
    let commands = VaultFlowTests()
    static let secret = "audit-e2e-s3cret-Qx7"

    /// `puffctl audit --json`'s entries.
    func entries(_ puffd: TestDaemon) async throws -> (entries: [[String: Any]], unreadable: [String: String]) {
        let audit = try await commands.puffctl(puffd, ["audit", "--json"])
        #expect(audit.status == 0, "\(audit.output)")
        let leaks = audit.bytes.range(of: Data(Self.secret.utf8)) != nil
        #expect(leaks == false, "puffctl audit printed the secret")
        let object = try #require(try JSONSerialization.jsonObject(with: audit.bytes) as? [String: Any])
        return (object["entries"] as? [[String: Any]] ?? [], object["unreadable"] as? [String: String] ?? [:])
    }

    @Test func aStoreAndALookupAreLoggedWithSecretToolsExecutableAcrossARestart() async throws {
        var puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "audit pass\n").status == 0)
        let store = try await commands.secretTool(
            puffd, ["store", "--label=Audit e2e", "service", "audit-e2e"], input: Self.secret)
        #expect(store.status == 0, "\(store.output)")
        let lookup = try await commands.secretTool(puffd, ["lookup", "service", "audit-e2e"])
        let readBack = lookup.output == Self.secret
        #expect(readBack, "secret-tool lookup returned another value")

        // What /proc/<pid>/exe names: the path with every symbolic link resolved.
        let expectedExecutable = URL(fileURLWithPath: "/usr/bin/secret-tool").resolvingSymlinksInPath().path
        let logged = try await entries(puffd).entries
        #expect(logged.map { $0["action"] as? String } == ["create", "read"])
        for entry in logged {
            #expect(entry["executable"] as? String == expectedExecutable)
            #expect(entry["label"] as? String == "Audit e2e")
            #expect(entry["result"] as? String == "allowed")
            #expect(entry["collection"] as? String == "login")
            #expect(entry["pid"] is Int)
        }
        let table = try await commands.puffctl(puffd, ["audit", "--since", "1h"])
        #expect(table.output.contains("Audit e2e") && table.output.contains("secret-tool"), "\(table.output)")

        #expect(try await commands.puffctl(puffd, ["lock"]).status == 0)
        let locked = try await entries(puffd)
        #expect(locked.entries.isEmpty)
        #expect(locked.unreadable == ["login": "locked"])
        #expect(try await commands.puffctl(puffd, ["audit", "--collection", "login"]).status == 3)

        _ = await puffd.terminate()
        puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["unlock", "--stdin"], input: "audit pass\n").status == 0)
        let restarted = try await entries(puffd)
        #expect(restarted.entries.map { $0["action"] as? String } == ["create", "read"])
        #expect(restarted.unreadable.isEmpty)
        _ = await puffd.terminate()

        // Neither the secret nor the label is readable in any of the vault's files.
        let names = try FileManager.default.contentsOfDirectory(atPath: commands.dataDir)
        #expect(names.contains { $0.hasSuffix(".audit") })
        for name in names {
            let bytes = try #require(FileManager.default.contents(atPath: "\(commands.dataDir)/\(name)"))
            let holdsSecret = bytes.range(of: Data(Self.secret.utf8)) != nil
            #expect(holdsSecret == false, "the secret is readable in \(name)")
            #expect(bytes.range(of: Data("Audit e2e".utf8)) == nil, "the label is readable in \(name)")
        }
        try? FileManager.default.removeItem(atPath: commands.dataDir)
    }
}
