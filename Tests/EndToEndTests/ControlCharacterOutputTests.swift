// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffTesting
import Testing

/// Issue 24 item 15: a client's label, attribute values and executable path carrying terminal
/// commands (ESC `[2J` clears the screen, U+009B is the one-character CSI) reached `puffctl list`,
/// `show`, `audit` and `access list` raw. Each shows them escaped; `--json` stays valid JSON that
/// decodes to the stored text.
@Suite(.serialized, .enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ControlCharacterOutputTests {
    let commands = VaultFlowTests()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-ctl-\(UUID().uuidString)")
    static let label = "evil\u{1B}[2Jlabel\u{9B}31m\u{07}"
    static let value = "ctl\u{1B}]0;title\u{07}\u{7F}"

    /// Whether `bytes` hold no C0 control but the newline, no DEL and no C1 control (U+0080 to
    /// U+009F, in UTF-8 0xC2 0x80 to 0xC2 0x9F).
    static func isTerminalSafe(_ bytes: Data) -> Bool {
        let raw = [UInt8](bytes)
        let c0 = raw.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }
        let c1 = zip(raw, raw.dropFirst()).contains { $0 == 0xC2 && (0x80...0x9F).contains($1) }
        return !c0 && !c1
    }

    @Test func labelsValuesAndExecutablePathsAreShownEscapedInEveryCommand() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // secret-tool run from a path with a terminal command in its name: what /proc/<pid>/exe says.
        let tool = folder.appendingPathComponent("secret\u{1B}[2Jtool\u{9B}1m").path
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: tool)
        let puffd = try await commands.daemon()
        #expect(try await commands.puffctl(puffd, ["init", "--stdin"], input: "ctl pass\n").status == 0)
        let store = try await ChildProcess.run(
            tool, ["store", "--label=\(Self.label)", "service", Self.value], environment: puffd.clientEnvironment,
            input: Data("ctl-secret".utf8))
        #expect(store.status == 0, "\(store.output)")
        let path = try #require(
            (try await commands.puffctl(puffd, ["list"])).output.split(separator: "\n").dropFirst().first?
                .split(separator: " ").first.map(String.init))
        #expect(try await commands.puffctl(puffd, ["protect", path]).status == 0)

        for arguments in [["list"], ["show", path], ["audit"], ["access", "list", path]] {
            let run = try await commands.puffctl(puffd, arguments)
            #expect(run.status == 0, "\(arguments): \(run.output)")
            #expect(Self.isTerminalSafe(run.bytes), "\(arguments) printed a control character: \(run.output)")
            #expect(run.output.contains("evil\\u001b[2Jlabel\\u009b31m\\u0007"), "\(arguments): \(run.output)")
        }
        let show = try await commands.puffctl(puffd, ["show", path])
        #expect(show.output.contains("service=ctl\\u001b]0;title\\u0007\\u007f"), "\(show.output)")
        let audit = try await commands.puffctl(puffd, ["audit"])
        #expect(audit.output.contains("secret\\u001b[2Jtool\\u009b1m"), "\(audit.output)")

        // JSON escapes by JSON's rules (and C1 and DEL too): it still decodes to what was stored.
        let json = try await commands.puffctl(puffd, ["list", "--json"])
        #expect(Self.isTerminalSafe(json.bytes), "\(json.output)")
        let items = try #require(try JSONSerialization.jsonObject(with: json.bytes) as? [[String: Any]])
        #expect(items.first?["label"] as? String == Self.label)
        #expect((items.first?["attributes"] as? [String: String])?["service"] == Self.value)
        _ = await puffd.terminate()
    }
}
