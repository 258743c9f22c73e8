// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 24 item 9: with `[access] hash_executables`, a caller whose `/proc/<pid>/exe` cannot be
/// read (the process that connected forked and exited) was matched by path alone, so whatever
/// runs behind the connection now was admitted by an allow bound to other contents.
extension AccessFlowTests {
    /// python secretstorage reading from a grandchild over its exited parent's connection
    /// (`forked_read.py`): `{"found", "matches", "error", "connector_gone"}`.
    func forkedRead(_ puffd: TestDaemon) async throws -> [String: Any] {
        let script = ClientDriver.directory.appendingPathComponent("forked_read.py").path
        let result = try await ChildProcess.run(
            "/usr/bin/python3", [script, "service", "access-e2e"],
            environment: puffd.clientEnvironment.merging(["EXPECTED_SECRET": Self.secret]) { $1 })
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return try #require(object as? [String: Any], "\(result.output)")
    }

    @Test func withHashedExecutablesACallerWhoseConnectingProcessLeftIsNotAdmittedByItsPath() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let strict = "[access]\nmode = \"strict\"\nhash_executables = true\n"
        let puffd = try await daemon(order: ["none"], extra: strict)
        try await prepare(puffd, firstRun: true)
        let allow = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["access", "allow", "service=access-e2e", Self.python, "--stdin"],
            environment: puffd.clientEnvironment, input: Data("right pass\n".utf8))
        #expect(allow.status == 0, "\(allow.output)")
        let listed = try await puffctl(puffd, ["access", "list", "service=access-e2e"])
        #expect(listed.output.contains("allow (contents bound)"), "\(listed.output)")

        // The same interpreter, still running, is admitted: the rule itself works.
        let direct = try await pythonRead(puffd)
        #expect(direct["matches"] as? Bool == true, "\(direct) \(puffd.log.suffix(1500))")
        // Its child, once the connecting process is gone, is not.
        let forked = try await forkedRead(puffd)
        #expect(forked["found"] as? Bool == true && forked["connector_gone"] as? Bool == true, "\(forked)")
        #expect(forked["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(forked)")
        #expect(forked["matches"] as? Bool == false)
    }
}
