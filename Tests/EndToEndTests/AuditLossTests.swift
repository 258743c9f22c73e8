// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// The audit log cannot be emptied unseen (issue 24 item 8): a log file deleted while puffd runs,
/// reads flooding older entries out through rotation, and a log larger than one D-Bus message,
/// with the built puffd and puffctl and python secretstorage as the client.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct AuditLossTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-auditloss-\(UUID().uuidString)")
    var vault: String { folder.appendingPathComponent("vault").path }

    /// puffd on a file vault in `folder` with `[audit] max_bytes = maxBytes`, `login` made and one
    /// item (service=audit-loss) stored with `label`.
    func daemon(maxBytes: Int, label: String = "audit loss") async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("puffd.toml")
        try "[vault]\ndata_dir = \"\(vault)\"\nkdf = \"interactive\"\n[audit]\nmax_bytes = \(maxBytes)\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let puffd = try await TestDaemon(arguments: ["--config", config.path, "--vault", "file"])
        let initialize = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: puffd.clientEnvironment,
            input: Data("loss pass\n".utf8))
        #expect(initialize.status == 0, "\(initialize.output)")
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=\(label)", "service", "audit-loss"],
            environment: puffd.clientEnvironment, input: Data("loss-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        return puffd
    }

    /// `count` reads of the item by python secretstorage.
    func flood(_ puffd: TestDaemon, _ count: Int) async throws {
        let script = ClientDriver.directory.appendingPathComponent("audit_flood.py").path
        let result = try await ChildProcess.run(
            ClientDriver.python, [script, "service", "audit-loss", "\(count)"], environment: puffd.clientEnvironment,
            timeout: HangGuard.driver)
        #expect(result.output == "read \(count)\n", "\(result.output)")
    }

    /// `puffctl audit --json` as an object, and its exit status.
    func audit(_ puffd: TestDaemon) async throws -> ([String: Any], Int32, String) {
        let result = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["audit", "--json"], environment: puffd.clientEnvironment)
        let object = (try? JSONSerialization.jsonObject(with: result.bytes)) as? [String: Any] ?? [:]
        return (object, result.status, result.output)
    }

    @Test func aLogDeletedWhilePuffdRunsIsNoticedAndTheNewLogSaysSo() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(maxBytes: 1 << 20)
        try await flood(puffd, 1)
        // The hostile client's step: remove every audit file of the vault, then read again.
        for name in try FileManager.default.contentsOfDirectory(atPath: vault) where name.contains(".audit") {
            try FileManager.default.removeItem(atPath: "\(vault)/\(name)")
        }
        try await flood(puffd, 1)
        let (object, status, output) = try await audit(puffd)
        #expect(status == 0, "\(output)")
        let actions = (object["entries"] as? [[String: Any]] ?? []).map { $0["action"] as? String ?? "" }
        #expect(actions == ["log-removed", "read"], "\(output)")
        // The create and the first read went with the files; the sealed numbers count them.
        #expect((object["rotated"] as? [String: Int])?["login"] == 2, "\(output)")
    }

    @Test func readsFloodingOlderEntriesOutAreCountedAndNamed() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(maxBytes: 4096)
        try await flood(puffd, 200)
        let (object, status, output) = try await audit(puffd)
        #expect(status == 0, "\(output)")
        let entries = object["entries"] as? [[String: Any]] ?? []
        let rotated = (object["rotated"] as? [String: Int])?["login"] ?? 0
        // Every entry made is either shown or counted as rotated away: the create and 200 reads.
        #expect(entries.count + rotated == 201, "\(entries.count) shown, \(rotated) rotated")
        #expect(rotated > 0)
        let table = try await ChildProcess.run(VaultFlowTests.puffctl, ["audit"], environment: puffd.clientEnvironment)
        #expect(table.output.contains("no longer holds its \(rotated) oldest entries"), "\(table.output)")
    }

    @Test func aLogLargerThanOneBusMessageIsShownWhole() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // 4 KiB labels: 1,100 reads make a log of about 4.7 MiB, more than a D-Bus message holds.
        let puffd = try await daemon(maxBytes: 16 << 20, label: String(repeating: "L", count: 4000))
        try await flood(puffd, 1100)
        let (object, status, output) = try await audit(puffd)
        #expect(status == 0, "\(output.suffix(300))")
        #expect((object["entries"] as? [[String: Any]])?.count == 1101)
    }
}
