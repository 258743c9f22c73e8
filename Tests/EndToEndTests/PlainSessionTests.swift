// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 24 item 16: `[sessions] allow_plain = false` refuses `OpenSession("plain")` with
/// `NotSupported` saying why, while `secret-tool` (libsecret) and python `secretstorage`, which
/// use DH sessions, store and read as before.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct PlainSessionTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-plain-\(UUID().uuidString)")

    /// puffd on a file vault in `folder` with `sessions` as its `[sessions]` table, initialised.
    func daemon(sessions: String) async throws -> TestDaemon {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("puffd.toml")
        try """
        [vault]
        data_dir = "\(folder.appendingPathComponent("vault").path)"
        kdf = "interactive"
        [sessions]
        \(sessions)

        """.write(to: config, atomically: true, encoding: .utf8)
        let puffd = try await TestDaemon(arguments: ["--config", config.path, "--vault", "file"])
        let initialize = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["init", "--stdin"], environment: puffd.clientEnvironment,
            input: Data("plain pass\n".utf8))
        #expect(initialize.status == 0, "\(initialize.output)")
        return puffd
    }

    /// plain_session.py's JSON line.
    func probe(_ puffd: TestDaemon) async throws -> [String: Any] {
        let run = try await ChildProcess.run(
            ClientDriver.python, [ClientDriver.directory.appendingPathComponent("plain_session.py").path],
            environment: puffd.clientEnvironment)
        let line = try #require(run.output.split(separator: "\n").last, "\(run.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output)")
    }

    @Test func withAllowPlainFalseAPlainSessionIsRefusedAndDHClientsStillWork() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(sessions: "allow_plain = false")
        let outcome = try await probe(puffd)
        #expect(outcome["plain"] as? String == "org.freedesktop.DBus.Error.NotSupported", "\(outcome)")
        #expect((outcome["message"] as? String)?.contains("allow_plain = false") == true, "\(outcome)")
        #expect(outcome["dh_roundtrip"] as? Bool == true, "\(outcome)\n\(puffd.log.suffix(1500))")

        let env = puffd.clientEnvironment
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=plain off", "service", "plain-off"], environment: env,
            input: Data("tool-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "plain-off"], environment: env)
        #expect(lookup.output == "tool-secret", "secret-tool lookup returned another value")
        _ = await puffd.terminate()
    }

    @Test func byDefaultAPlainSessionOpens() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let puffd = try await daemon(sessions: "")
        let outcome = try await probe(puffd)
        #expect(outcome["plain"] as? String == "opened", "\(outcome)")
        #expect(outcome["dh_roundtrip"] as? Bool == true, "\(outcome)")
        _ = await puffd.terminate()
    }
}
