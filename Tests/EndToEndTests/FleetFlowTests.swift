// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import PuffTesting
import Synchronization
import Testing

/// Fleet collections end to end (docs/fleet.md): two built puffd, each with a vault, a bus and a
/// token of its own (two machines), share a collection through a real `bao server -dev`, and are
/// used with the real `secret-tool`; what OpenBao holds is read back with `hvac` and `bao kv get`.
@Suite(
    .serialized, .enabled(if: TestBus.isAvailable && BaoServer.isAvailable),
    .timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetFlowTests {
    /// One machine: its folder, token file, configuration and puffd.
    struct Machine {
        let folder: TestFolder
        let puffd: TestDaemon

        /// - Parameter settings: More lines for `[store.openbao]`.
        init(_ name: String, bao: BaoServer, token: SecureBytes, settings: String = "") async throws {
            folder = try TestFolder("fleet-\(name)")
            let tokenFile = folder.appending("openbao-token").path
            try token.withUnsafeBytes { bytes in
                guard FileManager.default.createFile(atPath: tokenFile, contents: Data(bytes)) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
            let config = folder.appending("puffd.toml")
            try """
            [vault]
            data_dir = "\(folder.appending("vault").path)"
            kdf = "interactive"
            [store.openbao]
            address = "\(bao.address)"
            token_file = "\(tokenFile)"
            poll_interval = 1
            \(settings)
            """.write(to: config, atomically: true, encoding: .utf8)
            puffd = try await TestDaemon(arguments: ["--config", config.path, "--vault", "file", "--prompter", "none"])
        }

        func puffctl(_ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                FleetFlowTests.puffctl, arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
        }

        func secretTool(_ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                "/usr/bin/secret-tool", arguments, environment: puffd.clientEnvironment, input: Data(input.utf8))
        }

        /// `secret-tool lookup` of `attribute` = `value`'s secret, once it is there (nil if it never is).
        func waitForSecret(_ attribute: String, _ value: String) async throws -> String? {
            let found = Mutex<String?>(nil)
            _ = try await poll(limit: HangGuard.step, every: .milliseconds(100)) {
                let lookup = try await secretTool(["lookup", attribute, value])
                guard lookup.status == 0, !lookup.output.isEmpty else { return false }
                found.withLock { $0 = lookup.output }
                return true
            }
            return found.withLock { $0 }
        }
    }

    static let puffctl = URL(fileURLWithPath: TestDaemon.executablePath).deletingLastPathComponent()
        .appendingPathComponent("puffctl").path

    static let policy = """
        path "secret/data/puff/*" { capabilities = ["create", "read", "update"] }
        path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
        """

    /// Two machines, each initialised; `team` created on the first and attached, then unlocked,
    /// on the second.
    func pair(_ bao: BaoServer) async throws -> (Machine, Machine, collection: String) {
        let policy = try await bao.policy("puff-fleet", Self.policy)
        let first = try await Machine("a", bao: bao, token: try await bao.token(policies: [policy]))
        let second = try await Machine("b", bao: bao, token: try await bao.token(policies: [policy]))
        for machine in [first, second] {
            let initialize = try await machine.puffctl(["init", "--stdin"], input: "machine pass\n")
            #expect(initialize.status == 0, "\(initialize.output)")
        }
        let created = try await first.puffctl(
            ["collection", "create", "team", "--store", "openbao", "--stdin"], input: "team pass\n")
        #expect(created.status == 0, "\(created.output)")
        let id = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let attached = try await second.puffctl(["collection", "attach", "team", "--store", "openbao"])
        #expect(attached.status == 0, "\(attached.output)")
        #expect(attached.output.trimmingCharacters(in: .whitespacesAndNewlines) == id, "\(attached.output)")
        let unlocked = try await second.puffctl(["unlock", id, "--stdin"], input: "team pass\n")
        #expect(unlocked.status == 0, "\(unlocked.output)")
        return (first, second, id)
    }

    @Test func twoMachinesWritingAtOnceKeepBothAndEachSeesTheOthersItem() async throws {
        let bao = try await BaoServer()
        let (first, second, id) = try await pair(bao)
        let path = "--collection=/org/freedesktop/secrets/collection/\(id)"

        async let fromFirst = first.secretTool(
            ["store", "--label=from a", path, "fleet", "a"], input: "secret of a")
        async let fromSecond = second.secretTool(
            ["store", "--label=from b", path, "fleet", "b"], input: "secret of b")
        let (a, b) = try await (fromFirst, fromSecond)
        #expect(a.status == 0, "\(a.output)")
        #expect(b.status == 0, "\(b.output)")

        #expect(try await second.waitForSecret("fleet", "a") == "secret of a")
        #expect(try await first.waitForSecret("fleet", "b") == "secret of b")
        for machine in [first, second] {
            let search = try await machine.secretTool(["search", "--all", "fleet", "a"])
            #expect(search.output.components(separatedBy: "label = from a").count == 2, "\(search.output)")
        }

        let check = try await ChildProcess.run(
            BaoServer.python,
            [
                ClientDriver.directory.appendingPathComponent("fleet_kv_check.py").path, bao.address, "secret", "puff",
                "team", BaoServer.executable,
            ],
            environment: ["PATH": "/usr/bin:/bin"],
            input: kvCheckInput(bao, forbidden: ["from a", "from b", "fleet", "secret of a", "secret of b"]))
        #expect(check.status == 0 && check.output.hasPrefix("ok "), "\(check.output)")
    }

    @Test func offlineReadsGoOnWritesFailNamingTheCollectionAndItCatchesUpOnceBack() async throws {
        let bao = try await BaoServer()
        let (first, second, id) = try await pair(bao)
        let path = "--collection=/org/freedesktop/secrets/collection/\(id)"
        let stored = try await first.secretTool(["store", "--label=before", path, "when", "before"], input: "one")
        #expect(stored.status == 0, "\(stored.output)")
        #expect(try await second.waitForSecret("when", "before") == "one")

        bao.goOffline()
        let read = try await second.secretTool(["lookup", "when", "before"])
        #expect(read.status == 0 && read.output == "one", "\(read.output)")
        let refused = try await second.secretTool(["store", "--label=offline", path, "when", "offline"], input: "two")
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains(id) && refused.output.contains("offline"), "\(refused.output)")

        try bao.goOnline()
        let written = Mutex<ChildProcess.Result?>(nil)
        _ = try await poll(limit: HangGuard.step, every: .milliseconds(200)) {
            let store = try await second.secretTool(["store", "--label=after", path, "when", "after"], input: "three")
            written.withLock { $0 = store }
            return store.status == 0
        }
        let after = written.withLock { $0 }
        #expect(after?.status == 0, "\(after?.output ?? "")")
        #expect(try await first.waitForSecret("when", "after") == "three")
        let none = try await first.secretTool(["lookup", "when", "offline"])
        #expect(none.output.isEmpty, "the refused write is nowhere: \(none.output)")
    }

    /// fleet_kv_check.py's standard input: the root token, then each forbidden string in hex.
    func kvCheckInput(_ bao: BaoServer, forbidden: [String]) -> Data {
        var input = bao.rootToken.withUnsafeBytes { Data($0) }
        for text in forbidden {
            input.append(Data(("\n" + text.utf8.map { String(format: "%02x", $0) }.joined()).utf8))
        }
        return input
    }
}
