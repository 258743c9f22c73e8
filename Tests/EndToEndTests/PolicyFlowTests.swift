// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Passcode policies through the built `puffd` and `puffctl` on a private bus, over a file vault:
/// `digits6` refuses `abc123` and `12345` with exit status 1 and a one-line message that says what
/// is needed, on `init` and `passwd`; `status` shows the policy, also after a restart.
@Suite(.serialized, .enabled(if: TestBus.isAvailable))
struct PolicyFlowTests {
    static let message =
        "puffctl: the passcode must be 6 digits (policy digits6); nothing was changed, "
        + "try again with one that fits\n"

    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("puff-policy-\(UUID().uuidString)").path

    func daemon() async throws -> TestDaemon {
        try await TestDaemon(arguments: ["--data-dir", dataDir, "--kdf", "interactive"])
    }

    func puffctl(_ daemon: TestDaemon, _ arguments: [String], input: String = "") async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: daemon.clientEnvironment, input: Data(input.utf8))
    }

    /// The collections of `status --json`, by id.
    func jsonCollections(_ daemon: TestDaemon) async throws -> [String: [String: Any]] {
        let status = try await puffctl(daemon, ["status", "--json"])
        #expect(status.status == 0, "\(status.output)")
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let collections = try #require(object?["collections"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: collections.map { ($0["id"] as? String ?? "", $0) })
    }

    @Test func digits6RefusesLettersAndFiveDigitsOnInitAndPasswdAndStatusShowsIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        var puffd = try await daemon()
        for refused in ["abc123", "12345"] {
            let result = try await puffctl(puffd, ["init", "--stdin", "--policy", "digits6"], input: "\(refused)\n")
            #expect(result.status == 1)
            #expect(result.output == Self.message)
        }
        #expect(try await puffctl(puffd, ["status"]).output.contains("no passcode set"), "nothing was created")
        #expect(try await puffctl(puffd, ["init", "--stdin", "--policy", "digits6"], input: "123456\n").status == 0)

        let login = try #require(try await jsonCollections(puffd)["login"])
        #expect(login["policy"] as? String == "digits6")
        #expect(login["min_length"] as? Int == 6)
        #expect(login["policy_text"] as? String == "6 digits")

        let passwd = try await puffctl(puffd, ["passwd", "--stdin"], input: "123456\n12345\n")
        #expect(passwd.status == 1)
        #expect(passwd.output == Self.message)
        #expect(try await puffctl(puffd, ["lock"]).status == 0)
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "123456\n").status == 0, "still the old one")
        #expect(try await puffctl(puffd, ["passwd", "--stdin"], input: "123456\n654321\n").status == 0)

        let weak = try await puffctl(
            puffd, ["collection", "create", "Phone", "--policy", "digits4", "--stdin"], input: "abcd\n")
        #expect(weak.status == 1)
        #expect(weak.output.contains("the passcode must be 4 digits (policy digits4)"), "\(weak.output)")
        let short = try await puffctl(puffd, ["collection", "create", "Notes", "--stdin"], input: "seven77\n")
        #expect(short.output.contains("at least 8 characters (policy alphanumeric)"), "\(short.output)")
        #expect(
            try await puffctl(
                puffd, ["collection", "create", "Phone", "--policy", "digits4", "--stdin"], input: "1234\n"
            ).status == 0)
        let log = puffd.log
        _ = await puffd.terminate()

        puffd = try await daemon()
        let collections = try await jsonCollections(puffd)
        #expect(collections["login"]?["policy"] as? String == "digits6")
        #expect(collections["Phone"]?["policy"] as? String == "digits4")
        #expect(collections["Notes"] == nil)
        let table = try await puffctl(puffd, ["status"])
        #expect(table.output.contains("6 digits"), "\(table.output)")
        #expect(try await puffctl(puffd, ["unlock", "--stdin"], input: "654321\n").status == 0)
        // Only the passcodes with letters: digits alone could turn up in times and ids by chance.
        for passcode in ["abc123", "seven77"] {
            #expect(!(log + puffd.log).contains(passcode), "a refused passcode in puffd's log")
        }
        _ = await puffd.terminate()
    }
}
