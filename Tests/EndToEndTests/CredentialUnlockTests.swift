// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// puffd starts unlocked from systemd credentials (`$CREDENTIALS_DIRECTORY/puff.passcode.<id>`):
/// sealed with `systemd-creds encrypt` and opened with `systemd-creds decrypt` where those work (as
/// systemd does for `LoadCredentialEncrypted=`), a plain folder otherwise.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct CredentialUnlockTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-creds-\(UUID().uuidString)")
    var credentials: URL { folder.appendingPathComponent("credentials") }
    var arguments: [String] { ["--data-dir", folder.appendingPathComponent("vault").path, "--kdf", "interactive"] }

    /// Puts `passcode` (with a newline, as `echo` gives it) in the credential `name`; says how.
    func credential(_ name: String, _ passcode: String) async throws -> String {
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        let target = credentials.appendingPathComponent(name).path
        let sealed = folder.appendingPathComponent(name + ".cred").path
        let tool = "/usr/bin/systemd-creds"
        if FileManager.default.isExecutableFile(atPath: tool) {
            let encrypt = try await ChildProcess.run(
                tool, ["encrypt", "--name=\(name)", "--with-key=host", "-", sealed], environment: [:],
                input: Data((passcode + "\n").utf8))
            let decrypt = try await ChildProcess.run(
                tool, ["decrypt", "--name=\(name)", sealed, target], environment: [:])
            if encrypt.status == 0, decrypt.status == 0 { return "systemd-creds" }
        }
        try Data((passcode + "\n").utf8).write(to: URL(fileURLWithPath: target))
        return "plain file"
    }

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: arguments, environment: ["CREDENTIALS_DIRECTORY": credentials.path])
    }

    @Test func credentialsCreateLoginThenUnlockItAndOtherCollectionsAfterARestart() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let how = try await credential("puff.passcode.login", "cred pass")
        let first = try await daemon()
        #expect(first.log.contains("login created from its credential"), "\(how): \(first.log.suffix(1500))")
        let env = first.clientEnvironment
        let store = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["store", "--label=cred", "service", "cred-e2e"], environment: env,
            input: Data("cred-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        let create = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["collection", "create", "Work", "--stdin"], environment: env,
            input: Data("work pass 1\n".utf8))
        #expect(create.status == 0, "\(create.output)")
        _ = await first.terminate()

        _ = try await credential("puff.passcode.Work", "work pass 1")
        let second = try await daemon()
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup", "service", "cred-e2e"], environment: second.clientEnvironment)
        #expect(lookup.output == "cred-secret", "\(how): no prompt was needed")
        let status = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["status", "--json"], environment: second.clientEnvironment)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let collections = try #require(json["collections"] as? [[String: Any]])
        #expect(
            collections.filter { $0["locked"] as? Bool == false }.compactMap { $0["id"] as? String } == [
                "login", "Work",
            ])
        #expect(!second.log.contains("work pass 1") && !second.log.contains("cred pass"))
    }

    @Test func aWrongCredentialLeavesItsCollectionLockedAndPuffdServing() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await credential("puff.passcode.login", "cred pass")
        let first = try await daemon()
        _ = await first.terminate()
        _ = try await credential("puff.passcode.login", "not the passcode")
        let second = try await daemon()
        #expect(second.log.contains("does not open login"), "\(second.log.suffix(1500))")
        let status = try await ChildProcess.run(
            VaultFlowTests.puffctl, ["status"], environment: second.clientEnvironment)
        #expect(status.status == 0 && status.output.contains("locked"), "\(status.output)")
    }
}
