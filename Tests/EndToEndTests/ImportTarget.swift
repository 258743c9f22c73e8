// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// One item a collection must hold after an import, as Clients/import_check.py checks it over
/// D-Bus with python3-secretstorage. The secret is given as hex, or as its SHA-256 where the test
/// knows it only by digest (gnome_keyring.py never writes a secret down); nil times and content
/// type are not checked.
struct ImportedItem: Encodable {
    var label: String
    var attributes: [String: String]
    var secretHex: String?
    var secretSHA256: String?
    var contentType: String?
    var created: UInt64?
    var modified: UInt64?

    enum CodingKeys: String, CodingKey {
        case label, attributes, created, modified
        case secretHex = "secret_hex"
        case secretSHA256 = "secret_sha256"
        case contentType = "content_type"
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// A running puffd on a private bus with an initialised, unlocked `login` collection, and the
/// built `puffctl import` run against it.
struct ImportTarget {
    let commands = VaultFlowTests()
    let puffd: TestDaemon

    init() async throws {
        puffd = try await commands.daemon()
        let initialised = try await commands.puffctl(puffd, ["init", "--stdin"], input: "vault pass\n")
        try #require(initialised.status == 0, "\(initialised.output)")
    }

    /// `puffctl import SOURCE --into login EXTRA`, the source's password (when given) as one line
    /// of standard input through `--source-passcode-fd 0`.
    func importing(_ source: String, password: String?, _ extra: [String] = []) async throws -> ChildProcess.Result {
        var arguments = ["import", source, "--into", "login"] + extra
        if password != nil { arguments += ["--source-passcode-fd", "0"] }
        return try await ChildProcess.run(
            VaultFlowTests.puffctl, arguments, environment: puffd.clientEnvironment,
            input: Data(((password ?? "") + "\n").utf8), timeout: HangGuard.driver)
    }

    /// Runs import_check.py: the `login` collection holds exactly `expected`, over D-Bus.
    func expectHolds(_ expected: [ImportedItem], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let script = ClientDriver.directory.appendingPathComponent("import_check.py").path
        let check = try await ChildProcess.run(
            ClientDriver.python, [script, "login"], environment: puffd.clientEnvironment,
            input: try JSONEncoder().encode(expected), timeout: HangGuard.driver)
        #expect(check.status == 0, "\(check.output)", sourceLocation: sourceLocation)
    }

    /// The secret `secret-tool lookup` prints for `attributes`, exactly.
    func secretToolLookup(_ attributes: [(String, String)]) async throws -> Data {
        let lookup = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup"] + attributes.flatMap { [$0.0, $0.1] },
            environment: puffd.clientEnvironment)
        #expect(lookup.status == 0, "secret-tool lookup exited \(lookup.status)")
        return lookup.bytes
    }

    /// The totals line puffctl prints after an import.
    static func totals(added: Int, replaced: Int = 0, unchanged: Int = 0, skipped: Int = 0) -> String {
        "\(added) added, \(replaced) replaced, \(unchanged) unchanged, \(skipped) skipped"
    }
}
